/**
 * A Responses request read into the provider-neutral `ChatRequest`, so the same chains, repair and
 * ledger serve it as serve chat completions: `instructions` become the first system message,
 * input items become messages (a run of `function_call` items joins the assistant turn before
 * it), `text.format` becomes the structured output the gateway validates and repairs.
 */
import type { ChatMessage, ChatRequest, ResponseFormat, ToolChoice } from '../../core/chat/chat-model.js';
import { imageCharsAdjustment } from '../../core/chat/media-demand.js';
import { chatDemand, type RequestDemand } from '../../core/lifecycle/request-demand.js';
import { toUserContent } from './responses-content-schema.js';
import { type InputItem, partsText } from './responses-input-schema.js';
import type { ResponsesBody } from './responses-request-schema.js';

/** The assistant turn a function call joins: the last message, when it is the assistant's. */
function assistantTurn(messages: ChatMessage[]): Extract<ChatMessage, { role: 'assistant' }> {
  const last = messages.at(-1);
  if (last?.role === 'assistant') return last;
  const turn: ChatMessage = { role: 'assistant', content: null };
  messages.push(turn);
  return turn;
}

function addItem(messages: ChatMessage[], item: InputItem): void {
  switch (item.type) {
    case 'message': {
      if (item.role === 'user') messages.push({ role: 'user', content: toUserContent(item.content) });
      else if (item.role === 'assistant')
        messages.push({ role: 'assistant', content: partsText(item.content) });
      else messages.push({ role: 'system', content: partsText(item.content) });
      return;
    }
    case 'function_call': {
      const turn = assistantTurn(messages);
      turn.toolCalls = [
        ...(turn.toolCalls ?? []),
        { id: item.call_id, name: item.name, arguments: item.arguments },
      ];
      return;
    }
    case 'function_call_output':
      messages.push({ role: 'tool', toolCallId: item.call_id, content: partsText(item.output) });
      return;
  }
}

/** The neutral messages: `instructions` first, then the input. */
export function responsesMessages(body: Pick<ResponsesBody, 'instructions' | 'input'>): ChatMessage[] {
  const messages: ChatMessage[] = body.instructions ? [{ role: 'system', content: body.instructions }] : [];
  if (typeof body.input === 'string') messages.push({ role: 'user', content: body.input });
  else for (const item of body.input) addItem(messages, item);
  return messages;
}

function toToolChoice(choice: ResponsesBody['tool_choice']): ToolChoice | undefined {
  if (choice === undefined || choice === null || typeof choice === 'string') return choice ?? undefined;
  return { name: choice.name };
}

function toResponseFormat(text: ResponsesBody['text']): ResponseFormat | undefined {
  const format = text?.format;
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  return {
    type: 'json_schema',
    name: format.name,
    schema: format.schema,
    strict: format.strict ?? undefined,
  };
}

function toReasoning(reasoning: ResponsesBody['reasoning']): ChatRequest['reasoning'] {
  const effort = reasoning?.effort;
  return effort === undefined || effort === null || effort === 'none' ? undefined : { effort };
}

/** The provider-neutral request the router sends to every model. */
export function responsesToChatRequest(body: ResponsesBody): ChatRequest {
  const request: ChatRequest = {
    messages: responsesMessages(body),
    maxTokens: body.max_output_tokens ?? undefined,
    temperature: body.temperature ?? undefined,
    topP: body.top_p ?? undefined,
    tools: body.tools?.map((t) => ({
      name: t.name,
      description: t.description ?? undefined,
      parameters: t.parameters ?? undefined,
    })),
    toolChoice: toToolChoice(body.tool_choice),
    responseFormat: toResponseFormat(body.text),
  };
  const reasoning = toReasoning(body.reasoning);
  if (reasoning) request.reasoning = reasoning;
  return request;
}

/**
 * What a Responses body asks (the lifecycle's demand): its input items (a string is one), the
 * JSON size of `input` and `instructions` (each image counted at a fixed size, not its base64
 * text, as on chat: `imageCharsAdjustment`), and `max_output_tokens`, named as the caller named it.
 */
export function responsesDemand(
  body: Pick<ResponsesBody, 'input' | 'instructions' | 'max_output_tokens'>,
): RequestDemand {
  const items = typeof body.input === 'string' ? 1 : body.input.length;
  const chars =
    JSON.stringify(body.input).length +
    (body.instructions?.length ?? 0) +
    imageCharsAdjustment(responsesMessages(body));
  const tokens = body.max_output_tokens;
  const output = tokens == null ? undefined : { tokens, param: 'max_output_tokens' };
  return chatDemand(items, chars, output);
}
