import type { ContinuedLabel } from '../../core/router/stream-continuation.js';
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

/** The label of a continued stream as this door writes it: `{from, at_token, by}`. */
const wireLabel = (label: ContinuedLabel) => ({ from: label.from, at_token: label.atToken, by: label.by });

/**
 * A committed stream as OpenAI `chat.completion.chunk` events: the role chunk first, the usage
 * chunk at the end when the caller asked for it (`stream_options.include_usage`), then `[DONE]`;
 * after a failure, a chunk carrying `error` with code `stream_interrupted`. `shape`: how the
 * caller asked (legacy `functions`, `logprobs`); default neither. A stream continued after a
 * break carries `continued: {from, at_token, by}` on its finish chunk and its usage chunk
 * (docs/http-api.md#continued-streams).
 */
export function openAIStreamFormat(
  ids: AnswerIds,
  includeUsage: boolean,
  shape: AnswerShape = {},
): StreamFormat {
  let continued: ReturnType<typeof wireLabel> | undefined;
  const labelled = (chunk: object) => (continued ? { ...chunk, continued } : chunk);
  return {
    start: () => sse(roleChunk(ids)),
    event: (event) => {
      if (isSilentEvent(event)) return '';
      const data = eventChunk(event, ids, shape);
      if (data === undefined) return '';
      return sse(event.type === 'finish' ? labelled(data) : data);
    },
    end: (usage) => (includeUsage ? sse(labelled(usageChunk(usage, ids))) : '') + sse('[DONE]'),
    error: (message) =>
      sse({ error: { message, type: 'api_error', code: 'stream_interrupted', param: null } }),
    continuedBy: (label) => {
      continued = wireLabel(label);
    },
  };
}
