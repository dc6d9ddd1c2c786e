import type { StreamFormat } from '../../http/sse-stream.js';
import { type ResponsesEvent, ResponsesEventWriter } from './responses-events.js';
import type { EchoedRequest, ResponseIds } from './responses-format.js';

/** Server-sent events as the Responses API writes them: `event: <type>` and `data: <json>`. */
const sse = (events: ResponsesEvent[]) =>
  events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`).join('');

/**
 * A committed stream as Responses streaming events (responses-events.ts); after a failure,
 * `error` and `response.failed`. No `[DONE]`: the Responses API ends with its terminal event.
 */
export function responsesStreamFormat(ids: ResponseIds, request: EchoedRequest): StreamFormat {
  const writer = new ResponsesEventWriter(ids, request);
  return {
    start: () => sse(writer.start()),
    event: (event) => sse(writer.push(event)),
    end: (usage) => sse(writer.end(usage)),
    error: (message) => sse(writer.fail(message)),
  };
}
