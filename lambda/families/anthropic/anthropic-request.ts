import type {
  ToolChoice as AnthropicToolChoice,
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages';
import type { ChatMessage, ChatRequest, ToolChoice, ToolDefinition } from '../../core/chat/chat-model.js';
import type { ErrorSubject } from '../shared/malformed-response.js';
import { toolInput } from '../shared/tool-input.js';
import { toAnthropicBlocks, toAnthropicToolResultContent } from './anthropic-content.js';

/** The Messages request body shared by the streaming and non-streaming calls. */
export type AnthropicParams = Omit<MessageCreateParamsNonStreaming, 'stream'>;

/** An empty object schema, for tools declared without parameters (`input_schema` is required). */
const NO_PARAMETERS: Tool.InputSchema = { type: 'object', properties: {} };

/** Content blocks of one non-system message; empty text is dropped, as the API rejects it. */
function toContentBlocks(
  message: Exclude<ChatMessage, { role: 'system' }>,
  subject: ErrorSubject,
): ContentBlockParam[] {
  switch (message.role) {
    case 'user':
      return toAnthropicBlocks(message.content);
    case 'assistant': {
      const blocks: ContentBlockParam[] = message.content ? [{ type: 'text', text: message.content }] : [];
      for (const call of message.toolCalls ?? []) {
        // Arguments that are not a JSON object are the caller's error (invalid_request), as for Converse.
        blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: toolInput(call, subject) });
      }
      return blocks;
    }
    case 'tool':
      return [
        {
          type: 'tool_result',
          tool_use_id: message.toolCallId,
          content: toAnthropicToolResultContent(message.content),
          ...(message.isError ? { is_error: true } : {}),
        },
      ];
  }
}

/**
 * Splits neutral messages into the `system` text and Messages `messages`. System messages are
 * hoisted wherever they stand and joined by a blank line; tool results travel as user
 * `tool_result` blocks; consecutive same-role messages are merged, so parallel tool results
 * answer their calls in the one user turn that must follow them.
 */
export function toAnthropicMessages(
  messages: readonly ChatMessage[],
  subject: ErrorSubject,
): { system: string | undefined; messages: MessageParam[] } {
  const system: string[] = [];
  const out: { role: 'user' | 'assistant'; content: ContentBlockParam[] }[] = [];
  for (const message of messages) {
    if (message.role === 'system') {
      if (message.content !== '') system.push(message.content);
      continue;
    }
    const content = toContentBlocks(message, subject);
    if (content.length === 0) continue;
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const last = out.at(-1);
    if (last?.role === role) last.content.push(...content);
    else out.push({ role, content });
  }
  return {
    system: system.length === 0 ? undefined : system.join('\n\n'),
    // A lone text block goes as plain text: the shape every Messages example uses.
    messages: out.map(({ role, content }) => {
      const [only] = content;
      return content.length === 1 && only?.type === 'text' ? { role, content: only.text } : { role, content };
    }),
  };
}

/** Maps a tool definition; a tool without parameters gets an empty object schema. */
export function toAnthropicTool(tool: ToolDefinition): Tool {
  return {
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    input_schema: (tool.parameters as Tool.InputSchema | undefined) ?? NO_PARAMETERS,
  };
}

/** Maps our tool choice: `required` is Anthropic's `any`, a named tool its `tool`. */
export function toAnthropicToolChoice(choice: ToolChoice): AnthropicToolChoice {
  if (choice === 'required') return { type: 'any' };
  if (choice === 'auto' || choice === 'none') return { type: choice };
  return { type: 'tool', name: choice.name };
}

/**
 * Builds the Messages body for `model` (the raw upstream id). `max_tokens` is mandatory: the
 * request's own limit, else `defaultMaxTokens`. The Messages API of SDK 1.10 has no sampling
 * fields, so `temperature` and `top_p` are not sent. Throws `ProviderError` `invalid_request`
 * when an assistant tool call carries arguments that are not a JSON object.
 */
export function toAnthropicParams(
  request: ChatRequest,
  model: string,
  defaultMaxTokens: number,
  subject: ErrorSubject,
): AnthropicParams {
  const { system, messages } = toAnthropicMessages(request.messages, subject);
  const params: AnthropicParams = { model, max_tokens: request.maxTokens ?? defaultMaxTokens, messages };
  if (system !== undefined) params.system = system;
  if (request.stop !== undefined && request.stop.length > 0) params.stop_sequences = request.stop;
  if (request.tools !== undefined && request.tools.length > 0) {
    params.tools = request.tools.map(toAnthropicTool);
    if (request.toolChoice !== undefined) params.tool_choice = toAnthropicToolChoice(request.toolChoice);
  }
  return params;
}
