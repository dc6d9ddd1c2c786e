import type { ContinuedLabel } from '../../core/router/stream-continuation.js';
import type { StreamFormat } from '../../http/sse-stream.js';
import { createMessagesEventWriter, type MessageIds, type MessagesEvent } from './anthropic-format.js';

/** Server-sent events as the Messages API writes them: `event: <type>` and `data: <json>`. */
const sse = (events: MessagesEvent[]) =>
  events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`).join('');

/**
 * A committed stream as Anthropic Messages events (`message_start`, `content_block_start` /
 * `_delta` / `_stop`, `message_delta`, `message_stop`); after a failure, an `error` event in
 * Anthropic's envelope. A stream continued after a break carries `continued: {from, at_token,
 * by}` on its `message_delta` (docs/http-api.md#continued-streams).
 */
export function anthropicStreamFormat(ids: MessageIds): StreamFormat {
  const writer = createMessagesEventWriter(ids);
  let continued: ContinuedLabel | undefined;
  const labelled = (events: MessagesEvent[]): MessagesEvent[] => {
    if (!continued) return events;
    const label = { from: continued.from, at_token: continued.atToken, by: continued.by };
    return events.map((e) =>
      e.type === 'message_delta' ? { ...e, data: { ...e.data, continued: label } } : e,
    );
  };
  return {
    start: () => sse(writer.start()),
    event: (event) => sse(writer.push(event)),
    end: (usage) => sse(labelled(writer.end(usage))),
    continuedBy: (label) => {
      continued = label;
    },
    error: (message) =>
      sse([{ type: 'error', data: { type: 'error', error: { type: 'api_error', message } } }]),
  };
}
