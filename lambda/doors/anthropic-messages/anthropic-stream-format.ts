import type { StreamFormat } from '../../http/sse-stream.js';
import { createMessagesEventWriter, type MessageIds, type MessagesEvent } from './anthropic-format.js';

/** Server-sent events as the Messages API writes them: `event: <type>` and `data: <json>`. */
const sse = (events: MessagesEvent[]) =>
  events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`).join('');

/**
 * A committed stream as Anthropic Messages events (`message_start`, `content_block_start` /
 * `_delta` / `_stop`, `message_delta`, `message_stop`); after a failure, an `error` event in
 * Anthropic's envelope.
 */
export function anthropicStreamFormat(ids: MessageIds): StreamFormat {
  const writer = createMessagesEventWriter(ids);
  return {
    start: () => sse(writer.start()),
    event: (event) => sse(writer.push(event)),
    end: (usage) => sse(writer.end(usage)),
    error: (message) =>
      sse([{ type: 'error', data: { type: 'error', error: { type: 'api_error', message } } }]),
  };
}
