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
import { anthropicThinking, cacheControl, markLastBlock, thinkingBlocks } from './anthropic-extras.js';

/** The Messages request body shared by the streaming and non-streaming calls. */
export type AnthropicParams = Omit<MessageCreateParamsNonStreaming, 'stream'>;

/** An empty object schema, for tools declared without parameters (`input_schema` is required). */
const NO_PARAMETERS: Tool.InputSchema = { type: 'object', properties: {} };

/**
 * Content blocks of one non-system message; empty text is dropped, as the API rejects it. A cache
 * breakpoint goes on the message's last block.
 */
function toContentBlocks(
  message: Exclude<ChatMessage, { role: 'system' }>,
  subject: ErrorSubject,
): ContentBlockParam[] {
  const blocks = messageBlocks(message, subject);
  markLastBlock(blocks, message.cache);
  return blocks;
}

function messageBlocks(
  message: Exclude<ChatMessage, { role: 'system' }>,
  subject: ErrorSubject,
): ContentBlockParam[] {
  switch (message.role) {
    case 'user':
      return toAnthropicBlocks(message.content);
    case 'assistant': {
      // Reasoning comes first, as the model wrote it.
      const blocks: ContentBlockParam[] = thinkingBlocks(message.reasoning);
      if (message.content) blocks.push({ type: 'text', text: message.content });
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
): { system: AnthropicParams['system']; messages: MessageParam[] } {
  const system: Extract<ChatMessage, { role: 'system' }>[] = [];
  const out: { role: 'user' | 'assistant'; content: ContentBlockParam[] }[] = [];
  for (const message of messages) {
    if (message.role === 'system') {
      if (message.content !== '') system.push(message);
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
    system: toSystem(system),
    // A lone text block goes as plain text: the shape every Messages example uses.
    messages: out.map(({ role, content }) => {
      const [only] = content;
      return content.length === 1 && only?.type === 'text' && only.cache_control == null
        ? { role, content: only.text }
        : { role, content };
    }),
  };
}

/**
 * The `system` field: the system messages' text joined by a blank line, or, when one of them has
 * a cache breakpoint, one text block per message with `cache_control` where the breakpoints are.
 */
function toSystem(system: readonly Extract<ChatMessage, { role: 'system' }>[]): AnthropicParams['system'] {
  if (system.length === 0) return undefined;
  if (system.every((m) => m.cache === undefined)) return system.map((m) => m.content).join('\n\n');
  return system.map((m) => ({
    type: 'text' as const,
    text: m.content,
    ...(m.cache === undefined ? {} : { cache_control: cacheControl(m.cache) }),
  }));
}

/** Maps a tool definition; a tool without parameters gets an empty object schema. */
export function toAnthropicTool(tool: ToolDefinition): Tool {
  return {
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    input_schema: (tool.parameters as Tool.InputSchema | undefined) ?? NO_PARAMETERS,
    ...(tool.cache === undefined ? {} : { cache_control: cacheControl(tool.cache) }),
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
 * request's own limit, else `defaultMaxTokens`; reasoning asked for becomes `thinking` with a
 * budget below it (`anthropic-extras.ts`). The Messages API of SDK 1.10 has no sampling
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
  const maxTokens = request.maxTokens ?? defaultMaxTokens;
  const params: AnthropicParams = { model, max_tokens: maxTokens, messages };
  if (system !== undefined) params.system = system;
  const thinking = anthropicThinking(request.reasoning, maxTokens);
  if (thinking !== undefined) params.thinking = thinking;
  if (request.stop !== undefined && request.stop.length > 0) params.stop_sequences = request.stop;
  if (request.tools !== undefined && request.tools.length > 0) {
    params.tools = request.tools.map(toAnthropicTool);
    if (request.toolChoice !== undefined) params.tool_choice = toAnthropicToolChoice(request.toolChoice);
  }
  return params;
}

/** The body of `POST /v1/messages/count_tokens`: the Messages body without its output settings. */
export type AnthropicCountParams = Pick<
  AnthropicParams,
  'model' | 'messages' | 'system' | 'tools' | 'tool_choice'
>;

/** The count body for `model`: what the input of {@link toAnthropicParams} would be, nothing of its output. */
export function toAnthropicCountParams(
  request: ChatRequest,
  model: string,
  subject: ErrorSubject,
): AnthropicCountParams {
  const { model: id, messages, system, tools, tool_choice } = toAnthropicParams(request, model, 1, subject);
  return {
    model: id,
    messages,
    ...(system === undefined ? {} : { system }),
    ...(tools === undefined ? {} : { tools }),
    ...(tool_choice === undefined ? {} : { tool_choice }),
  };
}
