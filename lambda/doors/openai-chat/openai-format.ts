import type {
  ChatResult,
  ChatStreamEvent,
  FinishReason,
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

/** OpenAI has no `error` / `other` finish reason; both read as a plain stop. */
function openAIFinishReason(reason: FinishReason): string {
  return reason === 'error' || reason === 'other' ? 'stop' : reason;
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

/** A `chat.completion` object. */
export function completionBody(result: ChatResult, ids: AnswerIds) {
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
          ...(result.toolCalls.length > 0 ? { tool_calls: result.toolCalls.map(toolCallBody) } : {}),
          refusal: null,
        },
        finish_reason: openAIFinishReason(result.finishReason),
        logprobs: null,
      },
    ],
    usage: openAIUsage(result.usage),
  };
}

function chunk(ids: AnswerIds, delta: Record<string, unknown>, finishReason: string | null) {
  return {
    id: ids.id,
    object: 'chat.completion.chunk',
    created: ids.created,
    model: ids.model,
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
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

/** One of our stream events as an OpenAI chunk. */
export function eventChunk(event: ChatStreamEvent, ids: AnswerIds) {
  switch (event.type) {
    case 'text':
      return chunk(ids, { content: event.text }, null);
    case 'tool_call': {
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
      return chunk(ids, {}, openAIFinishReason(event.finishReason));
  }
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
