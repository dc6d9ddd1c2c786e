/**
 * Server-sent events of an OpenAI-compatible stream, read from Node's `IncomingMessage` the way
 * the openai SDK reads them (`Stream.fromSSEResponse`): the same events, values and errors.
 */
import type { IncomingMessage } from 'node:http';
import { APIError } from 'openai/error';
import type { ByteMeter } from '../shared/answer-limits.js';
import { bodyText, webHeaders } from '../shared/response-body.js';

const LINE_END = /[\r\n]/;

/** One dispatched event: its `event` field (null when absent) and its data lines joined. */
export interface SseEvent {
  event: string | null;
  data: string;
}

/**
 * Splits text into lines (`\n`, `\r\n` or `\r`) and lines into events, dispatching at each blank
 * line; comments (`:`) and unknown fields are skipped. An event the body ends in without its blank
 * line is dropped, as the SDK drops it.
 */
export class SseDecoder {
  private rest = '';
  private event: string | null = null;
  private data: string[] = [];

  /** The events completed by `text`. */
  push(text: string): SseEvent[] {
    // A piece with no line end completes no event (a held `\r` stays in the line and is split
    // with it later): append it without scanning the line again, so a long line costs its length
    // once, not once per piece.
    if (!LINE_END.test(text)) {
      this.rest += text;
      return [];
    }
    let buffer = this.rest + text;
    // A trailing `\r` may be the first half of `\r\n`: wait for the next piece.
    const held = buffer.endsWith('\r') ? 1 : 0;
    this.rest = held ? '\r' : '';
    if (held) buffer = buffer.slice(0, -1);
    const lines = buffer.split(/\r\n|\r|\n/);
    this.rest = (lines.pop() ?? '') + this.rest;
    const events: SseEvent[] = [];
    for (const line of lines) {
      const event = this.line(line);
      if (event) events.push(event);
    }
    return events;
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') {
      if (!this.event && this.data.length === 0) return undefined;
      const event = { event: this.event, data: this.data.join('\n') };
      this.event = null;
      this.data = [];
      return event;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    return undefined;
  }
}

/**
 * The parsed chunks of a streamed answer, until the body ends; `[DONE]` ends the chunks (the rest
 * is read and ignored). A chunk that is not JSON throws the parser's `SyntaxError`; a chunk that
 * carries an `error` throws an `APIError` with that error (and the response headers, for a
 * `Retry-After`); `thread.*` events (Assistants) pass as `{ event, data }`. Each event is bounded
 * by `meter` (an SSE meter) before its text is decoded: the decoder never holds more than one
 * event's worth of text.
 */
export async function* sseChunks(
  res: IncomingMessage,
  signal: AbortSignal,
  meter: ByteMeter,
): AsyncGenerator<unknown> {
  const decoder = new SseDecoder();
  let done = false;
  for await (const text of bodyText(res, signal, meter)) {
    for (const sse of decoder.push(text)) {
      if (done) continue;
      if (sse.data.startsWith('[DONE]')) {
        done = true;
        continue;
      }
      const data = JSON.parse(sse.data);
      if (sse.event === null || !sse.event.startsWith('thread.')) {
        if (data?.error) throw new APIError(undefined, data.error, undefined, webHeaders(res));
        yield data;
      } else {
        yield { event: sse.event, data };
      }
    }
  }
}
