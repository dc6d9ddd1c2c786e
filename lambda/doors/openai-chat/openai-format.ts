import type {
  ChatResult,
  ChatStreamEvent,
  FinishReason,
  TokenAlternative,
  TokenLogprob,
  ToolCall,
  Usage,
} from '../../core/chat/chat-model.js';
import { reasoningDetails } from './chat-extras-schema.js';

/** What every object of one answer shares: `id`, `created` (seconds) and the answering model key. */
export interface AnswerIds {
  id: string;
  created: number;
  model: string;
}

/**
 * How the caller asked, where it changes the answer's shape: `legacyFunctions` when it sent the
 * legacy `functions` (calls come back as `function_call`), `logprobs` when it asked for them.
 * Default: neither.
 */
export interface AnswerShape {
  legacyFunctions?: boolean | undefined;
  logprobs?: boolean | undefined;
}

/** OpenAI has no `error` / `other` finish reason; both read as a plain stop; legacy calls end with `function_call`. */
function openAIFinishReason(reason: FinishReason, shape: AnswerShape = {}): string {
  if (reason === 'tool_calls' && shape.legacyFunctions) return 'function_call';
  return reason === 'error' || reason === 'other' ? 'stop' : reason;
}

const alternative = ({ token, logprob, bytes }: TokenAlternative) => ({
  token,
  logprob,
  bytes: bytes ?? null,
});

/**
 * A choice's `logprobs`: `{content, refusal}` when the caller asked (content empty when the route
 * returned none), else null as OpenAI sends it.
 */
export function openAILogprobs(logprobs: TokenLogprob[] | undefined, shape: AnswerShape) {
  if (!shape.logprobs) return null;
  const content = (logprobs ?? []).map((t) => ({ ...alternative(t), top_logprobs: t.top.map(alternative) }));
  return { content, refusal: null };
}

/**
 * OpenAI's `usage`: prompt-cache reads become `prompt_tokens_details.cached_tokens` and reasoning
 * `completion_tokens_details.reasoning_tokens`, as OpenAI reports them; cache writes, which OpenAI
 * does not report, `prompt_tokens_details.cache_write_tokens` (as OpenRouter does). Each detail
 * is there when the route reported it.
 */
export function openAIUsage(usage: Usage | undefined) {
  const prompt = usage?.inputTokens ?? 0;
  const completion = usage?.outputTokens ?? 0;
  const counts: Record<string, unknown> = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
  const promptDetails: Record<string, number> = {};
  if (usage?.cacheReadTokens !== undefined) promptDetails.cached_tokens = usage.cacheReadTokens;
  if (usage?.cacheWriteTokens !== undefined) promptDetails.cache_write_tokens = usage.cacheWriteTokens;
  if (Object.keys(promptDetails).length > 0) counts.prompt_tokens_details = promptDetails;
  if (usage?.reasoningTokens !== undefined) {
    counts.completion_tokens_details = { reasoning_tokens: usage.reasoningTokens };
  }
  return counts;
}

/**
 * The answer's reasoning on the message: its text as `reasoning_content` (as DeepSeek writes it),
 * and, when a block is signed or redacted, every block as `reasoning_details` (as OpenRouter
 * writes them), which the caller hands back on its next turn. Nothing when there is none.
 */
function reasoningFields(result: ChatResult) {
  const reasoning = result.reasoning ?? [];
  if (reasoning.length === 0) return {};
  const text = reasoning.map((block) => (block.type === 'thinking' ? block.text : '')).join('');
  const signed = reasoning.some((block) => block.type === 'redacted' || block.signature !== undefined);
  return { reasoning_content: text, ...(signed ? { reasoning_details: reasoningDetails(reasoning) } : {}) };
}

const toolCallBody = (call: ToolCall) => ({
  id: call.id,
  type: 'function' as const,
  function: { name: call.name, arguments: call.arguments },
});

/** The answer's calls: `tool_calls`, or the first call as a legacy `function_call` (it has room for one). */
function callsOf(result: ChatResult, shape: AnswerShape) {
  const [first] = result.toolCalls;
  if (shape.legacyFunctions) {
    return first ? { function_call: { name: first.name, arguments: first.arguments } } : {};
  }
  return result.toolCalls.length > 0 ? { tool_calls: result.toolCalls.map(toolCallBody) } : {};
}

/** A `chat.completion` object. */
export function completionBody(result: ChatResult, ids: AnswerIds, shape: AnswerShape = {}) {
  return {
    id: ids.id,
    object: 'chat.completion',
    created: ids.created,
    model: ids.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: result.content,
          ...reasoningFields(result),
          ...callsOf(result, shape),
          refusal: null,
        },
        finish_reason: openAIFinishReason(result.finishReason, shape),
        logprobs: openAILogprobs(result.logprobs, shape),
      },
    ],
    usage: openAIUsage(result.usage),
  };
}

function chunk(
  ids: AnswerIds,
  delta: Record<string, unknown>,
  finishReason: string | null,
  logprobs: ReturnType<typeof openAILogprobs> = null,
) {
  return {
    id: ids.id,
    object: 'chat.completion.chunk',
    created: ids.created,
    model: ids.model,
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs }],
  };
}

/** The first chunk of every stream, as OpenAI sends it. */
export function roleChunk(ids: AnswerIds) {
  return chunk(ids, { role: 'assistant', content: '' }, null);
}

/**
 * True for a stream event the chunk stream leaves out: a reasoning signature or a redacted block
 * (a chunk carries reasoning text only; a plain answer's `reasoning_details` carries the rest).
 */
export function isSilentEvent(event: ChatStreamEvent): boolean {
  return event.type === 'reasoning' && (event.text === undefined || event.text === '');
}

/**
 * One of our stream events as an OpenAI chunk; undefined when the legacy shape has no room for it
 * (a second call: `function_call` carries one).
 */
export function eventChunk(event: ChatStreamEvent, ids: AnswerIds, shape: AnswerShape = {}) {
  switch (event.type) {
    case 'text':
      return chunk(ids, { content: event.text }, null, openAILogprobs(event.logprobs, shape));
    case 'tool_call': {
      if (shape.legacyFunctions) return legacyCallChunk(event, ids);
      const fn: Record<string, string> = {};
      if (event.name !== undefined) fn.name = event.name;
      fn.arguments = event.argumentsDelta ?? '';
      const call: Record<string, unknown> = { index: event.index, function: fn };
      if (event.id !== undefined) Object.assign(call, { id: event.id, type: 'function' });
      return chunk(ids, { tool_calls: [call] }, null);
    }
    case 'reasoning':
      return chunk(ids, { reasoning_content: event.text ?? '' }, null);
    case 'finish':
      return chunk(ids, {}, openAIFinishReason(event.finishReason, shape));
  }
}

/** A call delta as a legacy `function_call` delta; calls after the first have no room. */
function legacyCallChunk(event: Extract<ChatStreamEvent, { type: 'tool_call' }>, ids: AnswerIds) {
  if (event.index !== 0) return undefined;
  const fn: Record<string, string> = {};
  if (event.name !== undefined) fn.name = event.name;
  fn.arguments = event.argumentsDelta ?? '';
  return chunk(ids, { function_call: fn }, null);
}

/** The trailing usage chunk sent when the caller asked for `stream_options.include_usage`. */
export function usageChunk(usage: Usage | undefined, ids: AnswerIds) {
  return {
    id: ids.id,
    object: 'chat.completion.chunk',
    created: ids.created,
    model: ids.model,
    choices: [],
    usage: openAIUsage(usage),
  };
}
