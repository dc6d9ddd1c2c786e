import type { StreamFormat } from '../../http/sse-stream.js';
import {
  type AnswerIds,
  type AnswerShape,
  eventChunk,
  isSilentEvent,
  roleChunk,
  usageChunk,
} from './openai-format.js';

/** One server-sent event: `data: <json or text>` and a blank line. */
const sse = (data: unknown) => `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

/**
 * A committed stream as OpenAI `chat.completion.chunk` events: the role chunk first, the usage
 * chunk at the end when the caller asked for it (`stream_options.include_usage`), then `[DONE]`;
 * after a failure, a chunk carrying `error` with code `stream_interrupted`. `shape`: how the
 * caller asked (legacy `functions`, `logprobs`); default neither.
 */
export function openAIStreamFormat(
  ids: AnswerIds,
  includeUsage: boolean,
  shape: AnswerShape = {},
): StreamFormat {
  return {
    start: () => sse(roleChunk(ids)),
    event: (event) => {
      if (isSilentEvent(event)) return '';
      const data = eventChunk(event, ids, shape);
      return data === undefined ? '' : sse(data);
    },
    end: (usage) => (includeUsage ? sse(usageChunk(usage, ids)) : '') + sse('[DONE]'),
    error: (message) =>
      sse({ error: { message, type: 'api_error', code: 'stream_interrupted', param: null } }),
  };
}
