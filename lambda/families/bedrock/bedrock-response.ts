import type { ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import type {
  ChatResult,
  ChatStreamEvent,
  FinishReason,
  ReasoningBlock,
  ToolCall,
  Usage,
} from '../../core/chat/chat-model.js';
import { isRecord, tokenCount, usageFrom } from '../shared/json-shape.js';
import { type ErrorSubject, malformedResponse } from '../shared/malformed-response.js';
import { base64Of, reasoningBlockOf } from './bedrock-extras.js';

// Converse bodies are read defensively (`unknown` where the SDK's types promise more than an
// untrusted upstream does): a body off the protocol must become `malformed_response`.

/** Maps a Converse `stopReason` to our finish reason. */
export function mapBedrockStopReason(reason: unknown): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'content_filtered':
    case 'guardrail_intervened':
      return 'content_filter';
    default:
      return 'other';
  }
}

/**
 * Maps Converse `usage`; `undefined` unless both input and output token counts are present.
 * Converse counts prompt-cache reads and writes apart from `inputTokens`; ours counts every input
 * token in `inputTokens` and says how many of them the cache read or wrote.
 */
export function mapBedrockUsage(usage: unknown): Usage | undefined {
  const mapped = usageFrom(usage, 'inputTokens', 'outputTokens');
  if (mapped === undefined || !isRecord(usage)) return mapped;
  const read = tokenCount(usage.cacheReadInputTokens);
  const write = tokenCount(usage.cacheWriteInputTokens);
  mapped.inputTokens += (read ?? 0) + (write ?? 0);
  if (read !== undefined) mapped.cacheReadTokens = read;
  if (write !== undefined) mapped.cacheWriteTokens = write;
  return mapped;
}

/**
 * Maps a `ConverseCommand` output: text blocks joined (`null` when there is none), `toolUse`
 * blocks as tool calls with `JSON.stringify(input)`; reasoning and other blocks are ignored.
 * Throws `ProviderError` `malformed_response` when `output.message.content` is missing.
 */
export function mapConverseResponse(response: unknown, subject: ErrorSubject): ChatResult {
  const output = isRecord(response) ? response.output : undefined;
  const message = isRecord(output) ? output.message : undefined;
  const content = isRecord(message) ? message.content : undefined;
  if (!isRecord(response) || !Array.isArray(content)) {
    throw malformedResponse(subject, 'output.message.content is missing');
  }
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  const reasoning: ReasoningBlock[] = [];
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (typeof block.text === 'string') texts.push(block.text);
    const thought = reasoningBlockOf(block.reasoningContent);
    if (thought !== undefined) reasoning.push(thought);
    const toolUse = block.toolUse;
    if (isRecord(toolUse)) {
      if (typeof toolUse.toolUseId !== 'string' || typeof toolUse.name !== 'string') {
        throw malformedResponse(subject, 'toolUse block without toolUseId or name');
      }
      toolCalls.push({
        id: toolUse.toolUseId,
        name: toolUse.name,
        arguments: JSON.stringify(toolUse.input ?? {}),
      });
    }
  }
  return {
    content: texts.length === 0 ? null : texts.join(''),
    toolCalls,
    finishReason: mapBedrockStopReason(response.stopReason),
    usage: mapBedrockUsage(response.usage),
    ...(reasoning.length > 0 ? { reasoning } : {}),
  };
}

/** Exception members of the stream union, with the error name the service gives them. */
const STREAM_EXCEPTIONS = {
  internalServerException: 'InternalServerException',
  modelStreamErrorException: 'ModelStreamErrorException',
  serviceUnavailableException: 'ServiceUnavailableException',
  throttlingException: 'ThrottlingException',
  validationException: 'ValidationException',
} as const;

/**
 * The SDK usually throws stream exceptions, but the event union also types them as members. An
 * Error value is rethrown as is; a plain object becomes an Error carrying the service's name, so
 * the shared classifier sees the same thing either way.
 */
function streamException(event: ConverseStreamOutput): Error | undefined {
  // The union's members are interfaces without an index signature, hence the detour via unknown.
  const members = event as unknown as Readonly<Record<string, unknown>>;
  for (const [member, name] of Object.entries(STREAM_EXCEPTIONS)) {
    const value = members[member];
    if (value === undefined) continue;
    if (value instanceof Error) return value;
    const error = new Error(isRecord(value) && typeof value.message === 'string' ? value.message : name);
    error.name = name;
    return error;
  }
  return undefined;
}

/** Turns `ConverseStream` events into our stream events; one instance per stream. */
export interface BedrockStreamMapper {
  /**
   * Maps one stream event to zero or more `text` / `tool_call` events. Throws the exception an
   * exception member carries (the adapter wraps it into a `ProviderError`).
   */
  push(event: ConverseStreamOutput): ChatStreamEvent[];
  /**
   * The single `finish` event, built when the stream has ended: usage arrives in `metadata`
   * after `messageStop`. Throws `malformed_response` when no `messageStop` came.
   */
  end(): ChatStreamEvent;
}

/** A reasoning delta (text, signature or redacted bytes) as our reasoning events. */
function reasoningEvents(delta: unknown): ChatStreamEvent[] {
  if (!isRecord(delta)) return [];
  if (typeof delta.text === 'string')
    return delta.text === '' ? [] : [{ type: 'reasoning', text: delta.text }];
  if (typeof delta.signature === 'string') return [{ type: 'reasoning', signature: delta.signature }];
  const redacted = base64Of(delta.redactedContent);
  return redacted === undefined ? [] : [{ type: 'reasoning', redacted }];
}

/** Creates a stream mapper. Tool calls are numbered 0, 1, ... in the order their blocks start. */
export function createBedrockStreamMapper(subject: ErrorSubject): BedrockStreamMapper {
  const toolIndexByBlock = new Map<number, number>();
  let stopReason: FinishReason | undefined;
  let usage: Usage | undefined;

  const toolIndex = (block: number | undefined): number => {
    const key = block ?? -1;
    let index = toolIndexByBlock.get(key);
    if (index === undefined) {
      index = toolIndexByBlock.size;
      toolIndexByBlock.set(key, index);
    }
    return index;
  };

  return {
    push(event) {
      const exception = streamException(event);
      if (exception !== undefined) throw exception;
      const start = event.contentBlockStart;
      if (start?.start?.toolUse !== undefined) {
        const { toolUseId, name } = start.start.toolUse;
        return [{ type: 'tool_call', index: toolIndex(start.contentBlockIndex), id: toolUseId, name }];
      }
      const delta = event.contentBlockDelta;
      if (delta?.delta !== undefined) {
        const { text, toolUse, reasoningContent } = delta.delta;
        if (typeof text === 'string') return text === '' ? [] : [{ type: 'text', text }];
        if (reasoningContent !== undefined) return reasoningEvents(reasoningContent);
        if (toolUse !== undefined && typeof toolUse.input === 'string') {
          return [
            { type: 'tool_call', index: toolIndex(delta.contentBlockIndex), argumentsDelta: toolUse.input },
          ];
        }
        return [];
      }
      if (event.messageStop !== undefined) stopReason = mapBedrockStopReason(event.messageStop.stopReason);
      if (event.metadata !== undefined) usage = mapBedrockUsage(event.metadata.usage) ?? usage;
      return [];
    },
    end() {
      if (stopReason === undefined) throw malformedResponse(subject, 'stream ended without messageStop');
      return { type: 'finish', finishReason: stopReason, usage };
    },
  };
}
