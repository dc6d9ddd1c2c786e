import type {
  ChatResult,
  ChatStreamEvent,
  FinishReason,
  ToolCall,
  Usage,
} from '../../core/chat/chat-model.js';
import { isRecord, type JsonRecord, tokenCount, usageFrom } from '../shared/json-shape.js';
import { type ErrorSubject, malformedResponse } from '../shared/malformed-response.js';
import { mapOpenAILogprobs } from './openai-logprobs.js';

// Bodies are read as `unknown` on purpose: an OpenAI-compatible server is untrusted, and a body
// that does not match the protocol must become `malformed_response`, not a `TypeError` later.

/** Maps a Chat Completions `finish_reason`; the legacy `function_call` is a tool call. */
export function mapOpenAIFinishReason(reason: unknown): FinishReason {
  switch (reason) {
    case 'stop':
    case 'length':
    case 'tool_calls':
    case 'content_filter':
      return reason;
    case 'function_call':
      return 'tool_calls';
    default:
      return 'other';
  }
}

/**
 * Maps `usage`; `undefined` unless both prompt and completion token counts are present. Cached
 * prompt tokens come from `prompt_tokens_details.cached_tokens` (or DeepSeek's
 * `prompt_cache_hit_tokens`), cache writes from `prompt_tokens_details.cache_write_tokens`
 * (OpenRouter), reasoning from `completion_tokens_details.reasoning_tokens`; all are already part
 * of the prompt and completion counts.
 */
export function mapOpenAIUsage(usage: unknown): Usage | undefined {
  const mapped = usageFrom(usage, 'prompt_tokens', 'completion_tokens');
  if (mapped === undefined || !isRecord(usage)) return mapped;
  const prompt = isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const completion = isRecord(usage.completion_tokens_details) ? usage.completion_tokens_details : {};
  const read = tokenCount(prompt.cached_tokens) ?? tokenCount(usage.prompt_cache_hit_tokens);
  const write = tokenCount(prompt.cache_write_tokens);
  const reasoning = tokenCount(completion.reasoning_tokens);
  if (read !== undefined) mapped.cacheReadTokens = read;
  if (write !== undefined) mapped.cacheWriteTokens = write;
  if (reasoning !== undefined) mapped.reasoningTokens = reasoning;
  return mapped;
}

/**
 * The reasoning text of a message or a stream delta: `reasoning_content` (DeepSeek and the
 * servers that follow it), else `reasoning` (OpenRouter); undefined when there is none.
 */
function reasoningText(message: JsonRecord): string | undefined {
  const text = message.reasoning_content ?? message.reasoning;
  return typeof text === 'string' && text !== '' ? text : undefined;
}

/** Some compatible servers send `arguments` as an object instead of JSON text. */
function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined || value === null ? '' : JSON.stringify(value);
}

function mapToolCalls(value: unknown, subject: ErrorSubject): ToolCall[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw malformedResponse(subject, 'message.tool_calls is not an array');
  return value.map((call: unknown, position): ToolCall => {
    const fn = isRecord(call) ? call.function : undefined;
    if (!isRecord(call) || !isRecord(fn) || typeof fn.name !== 'string') {
      throw malformedResponse(subject, `message.tool_calls[${position}] has no function name`);
    }
    // A missing id breaks the tool round trip on the next turn, so synthesise a stable one.
    const id = typeof call.id === 'string' && call.id !== '' ? call.id : `call_${position}`;
    return { id, name: fn.name, arguments: argumentsText(fn.arguments) };
  });
}

/**
 * Maps a non-streaming Chat Completions body. Throws `ProviderError` `malformed_response` when
 * `choices[0].message` is missing or a tool call has no function name.
 */
export function mapOpenAICompletion(body: unknown, subject: ErrorSubject): ChatResult {
  if (!isRecord(body)) throw malformedResponse(subject, 'body is not a JSON object');
  const choices = body.choices;
  const choice: unknown = Array.isArray(choices) ? choices[0] : undefined;
  if (!isRecord(choice)) throw malformedResponse(subject, 'choices[0] is missing');
  const message = choice.message;
  if (!isRecord(message)) throw malformedResponse(subject, 'choices[0].message is missing');
  const reasoning = reasoningText(message);
  return {
    content: typeof message.content === 'string' ? message.content : null,
    toolCalls: mapToolCalls(message.tool_calls, subject),
    finishReason: mapOpenAIFinishReason(choice.finish_reason),
    usage: mapOpenAIUsage(body.usage),
    // Unsigned: the caller sees it, no family can take it back.
    ...(reasoning === undefined ? {} : { reasoning: [{ type: 'thinking' as const, text: reasoning }] }),
    ...logprobsField(choice.logprobs),
  };
}

/** `{logprobs}` when the choice carries them, else nothing (the field stays absent). */
function logprobsField(value: unknown): { logprobs?: ChatResult['logprobs'] } {
  const logprobs = mapOpenAILogprobs(value);
  return logprobs === undefined ? {} : { logprobs };
}

/** Turns Chat Completions chunks into our stream events; one instance per stream. */
export interface OpenAIStreamMapper {
  /** Maps one parsed chunk to zero or more `text` / `tool_call` events. */
  push(chunk: unknown): ChatStreamEvent[];
  /**
   * The single `finish` event, built when the stream has ended (usage arrives in a chunk after
   * the one carrying `finish_reason`).
   */
  end(): ChatStreamEvent;
}

/** The choice we follow: index 0 (we never ask for `n > 1`). */
function firstChoice(chunk: JsonRecord): JsonRecord | undefined {
  const choices = chunk.choices;
  if (!Array.isArray(choices)) return undefined;
  const found: unknown = choices.find((c: unknown) => isRecord(c) && c.index === 0) ?? choices[0];
  return isRecord(found) ? found : undefined;
}

function toolCallEvents(value: unknown): ChatStreamEvent[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).map((call, position): ChatStreamEvent => {
    const fn = isRecord(call.function) ? call.function : {};
    return {
      type: 'tool_call',
      index: typeof call.index === 'number' ? call.index : position,
      id: typeof call.id === 'string' ? call.id : undefined,
      name: typeof fn.name === 'string' ? fn.name : undefined,
      argumentsDelta: fn.arguments === undefined ? undefined : argumentsText(fn.arguments),
    };
  });
}

/**
 * Creates a stream mapper. `end()` throws `ProviderError` `malformed_response` when no chunk
 * carried a `finish_reason`: the HTTP body completed cleanly but the protocol's terminal marker
 * never came, so the answer may be truncated. Transport cuts surface earlier as SDK errors
 * (classified `network`) and never reach `end()`.
 */
export function createOpenAIStreamMapper(subject: ErrorSubject): OpenAIStreamMapper {
  let finishReason: FinishReason | undefined;
  let usage: Usage | undefined;
  return {
    push(chunk) {
      if (!isRecord(chunk)) throw malformedResponse(subject, 'stream chunk is not a JSON object');
      // A missing `choices` is tolerated (some servers omit it on the usage chunk); a wrong type is not.
      if (chunk.choices !== undefined && !Array.isArray(chunk.choices)) {
        throw malformedResponse(subject, 'stream chunk choices is not an array');
      }
      usage = mapOpenAIUsage(chunk.usage) ?? usage;
      const choice = firstChoice(chunk);
      if (choice === undefined) return [];
      if (typeof choice.finish_reason === 'string')
        finishReason = mapOpenAIFinishReason(choice.finish_reason);
      const delta = isRecord(choice.delta) ? choice.delta : {};
      const events: ChatStreamEvent[] = [];
      const reasoning = reasoningText(delta);
      if (reasoning !== undefined) events.push({ type: 'reasoning', text: reasoning });
      if (typeof delta.content === 'string' && delta.content !== '') {
        events.push({ type: 'text', text: delta.content, ...logprobsField(choice.logprobs) });
      }
      events.push(...toolCallEvents(delta.tool_calls));
      return events;
    },
    end() {
      if (finishReason === undefined)
        throw malformedResponse(subject, 'stream ended without a finish_reason');
      return { type: 'finish', finishReason, usage };
    },
  };
}
