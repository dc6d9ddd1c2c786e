/**
 * A loopback upstream that answers every request with one oversized body, written as the client
 * reads it (64 KiB at a time, waiting for `drain`), and that records how much of it went out
 * before the client closed the connection. It speaks no protocol beyond the body's first bytes:
 * any family's client can be pointed at it (`baseURL` / `endpoint`), for the bounded-read tests
 * and `bench/upstream-size`.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the body is: `json` a JSON object with one long string (`application/json`), `text` plain
 * text (`text/plain`), `sse-line` one `data:` line that never ends (`text/event-stream`),
 * `event-stream` one AWS event-stream message that declares the whole size
 * (`application/vnd.amazon.eventstream`).
 */
export type OversizedShape = 'json' | 'text' | 'sse-line' | 'event-stream';

/** The answer to one request. */
export interface OversizedAnswer {
  shape: OversizedShape;
  /** Total body size in bytes (at least the shape's opening bytes). */
  bytes: number;
  /** HTTP status. Default 200. */
  status?: number | undefined;
}

/** What happened to one answer. */
export interface SentBody {
  /** Request path, e.g. `/v1/chat/completions`. */
  path: string;
  /** The body's declared size. */
  total: number;
  /** Bytes handed to the socket before it closed (the kernel may not have delivered them all). */
  written: number;
  /** True once the whole body was written and the response ended. */
  finished: boolean;
  /** True when the connection closed before the body was all written. */
  closedEarly: boolean;
}

/** A running oversized upstream. */
export interface OversizedUpstream {
  /** `http://127.0.0.1:<port>` (append the family's base path). */
  url: string;
  /** One record per request, in arrival order; live while the answer is being written. */
  sent: SentBody[];
  /** Resolves once every answer started so far has ended or closed. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

const CHUNK = 64 * 1024;
const FILL = Buffer.alloc(CHUNK, 'a');

const CONTENT_TYPE: Record<OversizedShape, string> = {
  json: 'application/json',
  text: 'text/plain',
  'sse-line': 'text/event-stream',
  'event-stream': 'application/vnd.amazon.eventstream',
};

/** The opening bytes of a body of `total` bytes; the rest is filler (and the JSON's closing `"}`). */
function opening(shape: OversizedShape, total: number): Buffer {
  if (shape === 'json') return Buffer.from('{"id":"huge","pad":"');
  if (shape === 'sse-line') return Buffer.from('data: {"pad":"');
  if (shape === 'text') return Buffer.alloc(0);
  // Prelude of an event-stream message: total length, headers length 0, a prelude CRC (never checked: the client stops first).
  const prelude = Buffer.alloc(12);
  prelude.writeUInt32BE(total >>> 0, 0);
  return prelude;
}

/** Starts the server; `answer` picks the answer of each request. */
export async function startOversizedUpstream(
  answer: (req: IncomingMessage) => OversizedAnswer,
): Promise<OversizedUpstream> {
  const sent: SentBody[] = [];
  const running = new Set<Promise<void>>();
  const server = createServer((req, res) => {
    const plan = answer(req);
    const record: SentBody = {
      path: req.url ?? '/',
      total: plan.bytes,
      written: 0,
      finished: false,
      closedEarly: false,
    };
    sent.push(record);
    const work = (async () => {
      // The request body is drained first, so that the client is reading the answer when it comes.
      for await (const _ of req) void _;
      let closed = false;
      const gone = new Promise<void>((resolve) =>
        res.once('close', () => {
          closed = true;
          record.closedEarly = !record.finished;
          resolve();
        }),
      );
      res.writeHead(plan.status ?? 200, {
        'content-type': CONTENT_TYPE[plan.shape],
        'content-length': String(plan.bytes),
      });
      const write = async (bytes: Buffer) => {
        record.written += bytes.length;
        if (!res.write(bytes))
          await Promise.race([new Promise((resolve) => res.once('drain', resolve)), gone]);
      };
      const head = opening(plan.shape, plan.bytes);
      const tail = plan.shape === 'json' ? Buffer.from('"}') : Buffer.alloc(0);
      await write(head);
      let left = plan.bytes - head.length - tail.length;
      while (left > 0 && !closed) {
        const n = Math.min(left, CHUNK);
        await write(n === CHUNK ? FILL : FILL.subarray(0, n));
        left -= n;
      }
      if (closed) return;
      await write(tail);
      record.finished = true;
      res.end();
    })().catch(() => {
      res.destroy();
    });
    running.add(work);
    void work.finally(() => running.delete(work));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    sent,
    settled: async () => {
      await Promise.all(running);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
