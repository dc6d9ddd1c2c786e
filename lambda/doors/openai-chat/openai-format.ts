import type {
  ChatResult,
  ChatStreamEvent,
  FinishReason,
  ToolCall,
  Usage,
} from '../../core/chat/chat-model.js';

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

/** OpenAI's `usage`; prompt-cache reads become `prompt_tokens_details.cached_tokens`, as OpenAI reports them. */
export function openAIUsage(usage: Usage | undefined) {
  const prompt = usage?.inputTokens ?? 0;
  const completion = usage?.outputTokens ?? 0;
  const counts = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  const cached = usage?.cacheReadTokens;
  return cached === undefined ? counts : { ...counts, prompt_tokens_details: { cached_tokens: cached } };
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
