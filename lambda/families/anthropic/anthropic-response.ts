import type {
  ChatResult,
  ChatStreamEvent,
  FinishReason,
  ReasoningBlock,
  ToolCall,
  Usage,
} from '../../core/chat/chat-model.js';
import type { StreamMapper } from '../shared/attempt-calls.js';
import { isRecord, type JsonRecord, tokenCount } from '../shared/json-shape.js';
import { type ErrorSubject, malformedResponse } from '../shared/malformed-response.js';

// Bodies are read as `unknown`: the upstream is untrusted, and an answer off the protocol must
// become `malformed_response`, not a `TypeError` later.

/** Maps a Messages `stop_reason` to our finish reason. */
export function mapAnthropicStopReason(reason: unknown): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      return 'other';
  }
}

/**
 * Maps Messages `usage`. Anthropic counts cached input apart from `input_tokens`; ours counts
 * every input token in `inputTokens` and says how many of them the cache read or wrote. A
 * `message_delta` may omit the input counts: `base` (from `message_start`) fills them in.
 * `undefined` unless an input and an output count are known.
 */
export function mapAnthropicUsage(usage: unknown, base?: Usage): Usage | undefined {
  if (!isRecord(usage)) return base;
  const output = tokenCount(usage.output_tokens) ?? base?.outputTokens;
  const read = tokenCount(usage.cache_read_input_tokens) ?? base?.cacheReadTokens;
  const write = tokenCount(usage.cache_creation_input_tokens) ?? base?.cacheWriteTokens;
  const uncached = tokenCount(usage.input_tokens);
  const input = uncached === undefined ? base?.inputTokens : uncached + (read ?? 0) + (write ?? 0);
  if (input === undefined || output === undefined) return undefined;
  const mapped: Usage = { inputTokens: input, outputTokens: output };
  if (read !== undefined) mapped.cacheReadTokens = read;
  if (write !== undefined) mapped.cacheWriteTokens = write;
  return mapped;
}

function toolCallOf(block: JsonRecord, subject: ErrorSubject): ToolCall {
  if (typeof block.id !== 'string' || typeof block.name !== 'string') {
    throw malformedResponse(subject, 'tool_use block without id or name');
  }
  return { id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) };
}

/** A `thinking` or `redacted_thinking` block as a reasoning block, kept as it came; else undefined. */
function reasoningOf(block: JsonRecord): ReasoningBlock | undefined {
  if (block.type === 'thinking' && typeof block.thinking === 'string') {
    return typeof block.signature === 'string'
      ? { type: 'thinking', text: block.thinking, signature: block.signature }
      : { type: 'thinking', text: block.thinking };
  }
  if (block.type === 'redacted_thinking' && typeof block.data === 'string') {
    return { type: 'redacted', data: block.data };
  }
  return undefined;
}

/**
 * Maps a Messages answer: text blocks joined (`null` when there is none), `tool_use` blocks as
 * tool calls with `JSON.stringify(input)`, thinking blocks (signed, or redacted) as its
 * reasoning; server-tool blocks are not part of the neutral answer. Throws `malformed_response`
 * when `content` is missing.
 */
export function mapAnthropicMessage(body: unknown, subject: ErrorSubject): ChatResult {
  if (!isRecord(body) || !Array.isArray(body.content)) {
    throw malformedResponse(subject, 'message content is missing');
  }
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  const reasoning: ReasoningBlock[] = [];
  for (const block of body.content) {
    if (!isRecord(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
    if (block.type === 'tool_use') toolCalls.push(toolCallOf(block, subject));
    const thought = reasoningOf(block);
    if (thought !== undefined) reasoning.push(thought);
  }
  return {
    content: texts.length === 0 ? null : texts.join(''),
    toolCalls,
    finishReason: mapAnthropicStopReason(body.stop_reason),
    usage: mapAnthropicUsage(body.usage),
    ...(reasoning.length > 0 ? { reasoning } : {}),
  };
}

/** `input_tokens` of a count_tokens answer; anything but a whole number of tokens is malformed. */
export function mapAnthropicTokenCount(body: unknown, subject: ErrorSubject): number {
  const tokens = isRecord(body) ? body.input_tokens : undefined;
  if (typeof tokens !== 'number' || !Number.isInteger(tokens) || tokens < 0) {
    throw malformedResponse(subject, 'input_tokens is missing');
  }
  return tokens;
}

/**
 * Turns Messages stream events into ours, one instance per stream: each event into zero or more
 * `text` / `tool_call` events, then the single `finish` (`malformed_response` when no
 * `message_stop` came). Tool calls are numbered 0, 1, ... in the order their blocks start.
 */
export function createAnthropicStreamMapper(subject: ErrorSubject): StreamMapper<unknown> {
  const toolIndexByBlock = new Map<unknown, number>();
  let stopReason: FinishReason | undefined;
  let stopped = false;
  let usage: Usage | undefined;

  const blockStart = (event: JsonRecord): ChatStreamEvent[] => {
    const block = event.content_block;
    if (!isRecord(block)) throw malformedResponse(subject, 'content_block_start without content_block');
    if (block.type === 'tool_use') {
      const call = toolCallOf(block, subject);
      const index = toolIndexByBlock.size;
      toolIndexByBlock.set(event.index, index);
      return [{ type: 'tool_call', index, id: call.id, name: call.name }];
    }
    if (block.type === 'redacted_thinking' && typeof block.data === 'string') {
      return [{ type: 'reasoning', redacted: block.data }];
    }
    if (block.type === 'thinking' && typeof block.thinking === 'string' && block.thinking !== '') {
      return [{ type: 'reasoning', text: block.thinking }];
    }
    return block.type === 'text' && typeof block.text === 'string' && block.text !== ''
      ? [{ type: 'text', text: block.text }]
      : [];
  };

  const blockDelta = (event: JsonRecord): ChatStreamEvent[] => {
    const delta = event.delta;
    if (!isRecord(delta)) throw malformedResponse(subject, 'content_block_delta without delta');
    if (delta.type === 'text_delta' && typeof delta.text === 'string') {
      return delta.text === '' ? [] : [{ type: 'text', text: delta.text }];
    }
    if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string') {
      return delta.thinking === '' ? [] : [{ type: 'reasoning', text: delta.thinking }];
    }
    if (delta.type === 'signature_delta' && typeof delta.signature === 'string') {
      return [{ type: 'reasoning', signature: delta.signature }];
    }
    const index = toolIndexByBlock.get(event.index);
    if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string' && index !== undefined) {
      return [{ type: 'tool_call', index, argumentsDelta: delta.partial_json }];
    }
    return [];
  };

  return {
    push(event) {
      if (!isRecord(event)) throw malformedResponse(subject, 'stream event is not a JSON object');
      switch (event.type) {
        case 'message_start':
          usage = mapAnthropicUsage(isRecord(event.message) ? event.message.usage : undefined, usage);
          return [];
        case 'content_block_start':
          return blockStart(event);
        case 'content_block_delta':
          return blockDelta(event);
        case 'message_delta': {
          const delta = isRecord(event.delta) ? event.delta : {};
          if (delta.stop_reason != null) stopReason = mapAnthropicStopReason(delta.stop_reason);
          usage = mapAnthropicUsage(event.usage, usage);
          return [];
        }
        case 'message_stop':
          stopped = true;
          return [];
        default:
          return [];
      }
    },
    // `message_start` carries the prompt's count: an interrupted stream is billed for it.
    reportedInputTokens: () => usage?.inputTokens,
    end() {
      if (!stopped) throw malformedResponse(subject, 'stream ended without message_stop');
      return { type: 'finish', finishReason: stopReason ?? 'other', usage };
    },
  };
}
