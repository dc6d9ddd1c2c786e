/**
 * One request/response pair of a fake upstream, with the bookkeeping the request log needs:
 * whether the client went away first, and which status was answered.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FakeScript, RequestRecord } from './fake-script.js';
import type { Fault } from './fault.js';

/** Request bodies larger than this are refused; the fakes only ever see test prompts. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** Result of reading a JSON body: the value, or why there is none. */
export type JsonBody = { ok: true; value: unknown } | { ok: false; reason: 'too_large' | 'invalid_json' };

/** A request in flight on a fake upstream. */
export class Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** Aborted when the response closes, for whatever reason; pending sleeps end with it. */
  readonly signal: AbortSignal;
  /** Resolves when the response closes (finished, client gone, or socket destroyed). */
  readonly closed: Promise<void>;
  /** Path without the query string. */
  readonly path: string;
  #record: RequestRecord | undefined;
  #destroyedByUs = false;
  /** The fault's `bodyDelayMs`: the wait between the headers and the body (or first frame). */
  #bodyDelayMs = 0;

  constructor(req: IncomingMessage, res: ServerResponse, shuttingDown: () => boolean) {
    this.req = req;
    this.res = res;
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    this.path = q === -1 ? url : url.slice(0, q);
    const controller = new AbortController();
    this.signal = controller.signal;
    this.closed = new Promise((resolve) => {
      res.once('close', () => {
        // Only the client's own disconnect counts as an abort: a scripted reset/cut or the fake
        // shutting down must not pass for a cancelled caller.
        if (this.#record && !res.writableFinished && !this.#destroyedByUs && !shuttingDown()) {
          this.#record.aborted = true;
        }
        controller.abort();
        resolve();
      });
    });
  }

  /** Query string parameters. */
  get query(): URLSearchParams {
    const url = this.req.url ?? '/';
    const q = url.indexOf('?');
    return new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
  }

  /** Picks the fault for this request from the script and starts logging it. */
  take(script: FakeScript, model: string, stream: boolean): RequestRecord {
    this.#record = script.take(model, stream);
    return this.#record;
  }

  /** Reads and parses the whole body as JSON. */
  async readJson(): Promise<JsonBody> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of this.req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) return { ok: false, reason: 'too_large' };
      chunks.push(chunk);
    }
    const text =
      chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8');
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch {
      return { ok: false, reason: 'invalid_json' };
    }
  }

  /**
   * Applies the parts of a fault that act before any header: latency, reset, hang. Returns true
   * when the provider should go on and answer.
   */
  async beforeHeaders(fault: Fault): Promise<boolean> {
    this.#bodyDelayMs = fault.bodyDelayMs ?? 0;
    if (fault.latencyMs) await this.sleep(fault.latencyMs);
    if (this.signal.aborted) return false;
    if (fault.reset) {
      this.destroy();
      return false;
    }
    if (fault.hang) {
      await this.closed;
      return false;
    }
    return true;
  }

  /** Waits `ms`, or less if the response closes first (so no timer outlives a connection). */
  sleep(ms: number): Promise<void> {
    if (this.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.signal.addEventListener('abort', done, { once: true });
    });
  }

  /** Writes the status line and headers, and records the status. */
  writeHead(status: number, headers: OutgoingHttpHeaders): void {
    if (this.#record) this.#record.answeredStatus = status;
    this.res.writeHead(status, headers);
  }

  /** Answers with a complete JSON body. */
  json(status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
    this.text(status, JSON.stringify(body), 'application/json', headers);
  }

  /** Answers with a complete body of the given content type. */
  text(status: number, body: string, contentType: string, headers: OutgoingHttpHeaders = {}): void {
    if (this.signal.aborted) return;
    this.writeHead(status, {
      ...headers,
      'content-type': contentType,
      'content-length': Buffer.byteLength(body),
    });
    if (!this.#bodyDelayMs) return void this.res.end(body);
    this.res.flushHeaders();
    void this.sleep(this.#bodyDelayMs).then(() => {
      if (!this.signal.aborted) this.res.end(body);
    });
  }

  /** Waits `ms` more between the headers and the body (a model still writing its answer). */
  delayBodyBy(ms: number): void {
    this.#bodyDelayMs += ms;
  }

  /** Sends the headers at once and waits `bodyDelayMs` before the first frame (a slow first token). */
  private async delayBody(): Promise<void> {
    if (!this.#bodyDelayMs) return;
    this.res.flushHeaders();
    await this.sleep(this.#bodyDelayMs);
  }

  /**
   * Answers 200 with the first half of a JSON body, then destroys the socket. The full
   * `content-length` is announced so the client knows the body is incomplete.
   */
  partialJson(body: unknown, headers: OutgoingHttpHeaders = {}): void {
    if (this.signal.aborted) return;
    const bytes = Buffer.from(JSON.stringify(body));
    this.writeHead(200, { ...headers, 'content-type': 'application/json', 'content-length': bytes.length });
    this.writeThenDestroy([bytes.subarray(0, Math.floor(bytes.length / 2))]);
  }

  /**
   * Writes stream frames: all in one write when there is no delay (cheap for benchmarks), else
   * one by one. Then ends the response, or with `cut` destroys the socket once the frames are
   * flushed. Stops early when the client goes away.
   */
  async frames(
    frames: ReadonlyArray<string | Uint8Array>,
    delayMs: number,
    ending: 'end' | 'destroy' | 'stall',
  ): Promise<void> {
    await this.delayBody();
    if (this.signal.aborted) return;
    if (!delayMs && ending !== 'stall') {
      const joined = joinFrames(frames);
      if (ending === 'destroy') this.writeThenDestroy([joined]);
      else this.res.end(joined);
      return;
    }
    for (let i = 0; i < frames.length; i++) {
      if (this.signal.aborted) return;
      if (i > 0 && delayMs) await this.sleep(delayMs);
      if (this.signal.aborted) return;
      this.res.write(frames[i] as string | Uint8Array);
    }
    if (ending === 'destroy') this.writeThenDestroy([]);
    else if (ending === 'end') this.res.end();
    // 'stall': the connection stays open and silent until the client goes away.
    else
      await new Promise<void>((resolve) =>
        this.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
  }

  /** Destroys the socket now (a scripted failure, not a client abort). */
  destroy(): void {
    this.#destroyedByUs = true;
    this.req.socket.destroy();
  }

  /** Writes the data, then destroys the socket once it has been flushed to the kernel. */
  writeThenDestroy(data: ReadonlyArray<string | Uint8Array>): void {
    this.#destroyedByUs = true;
    if (this.signal.aborted) return;
    const last = data.length === 0 ? '' : joinFrames(data);
    // An empty write still flushes pending headers and gives a callback after the flush.
    this.res.write(last, () => this.req.socket.destroy());
  }

  /** Last resort when a handler throws: a plain 500 if nothing was sent yet, else a reset. */
  fail(): void {
    if (this.signal.aborted) return;
    if (this.res.headersSent) this.destroy();
    else
      this.json(500, {
        message: 'fake upstream internal error',
        error: { message: 'fake upstream internal error' },
      });
  }
}

function joinFrames(frames: ReadonlyArray<string | Uint8Array>): string | Uint8Array {
  if (frames.length === 1) return frames[0] as string | Uint8Array;
  if (frames.every((f) => typeof f === 'string')) return frames.join('');
  return Buffer.concat(frames.map((f) => (typeof f === 'string' ? Buffer.from(f) : f)));
}
