/**
 * A `fetch` for provider SDKs built on `node:http` / `node:https` with keep-alive agents.
 *
 * Why: the global `fetch` (undici) costs far more CPU per request than `node:http`; behind a
 * gateway that calls one upstream per request, that cost is most of the gateway's overhead (see
 * `bench/overhead`). The openai SDK accepts a custom `fetch`, and uses only a small part of it:
 * a method, headers, a string body, an `AbortSignal`, and a `Response` whose body it reads
 * whole (`json()` / `text()`) or as a stream of server-sent events. That part is what this
 * implements, with the same error shapes as undici, so that error classification is unchanged:
 * a failure before the response is `TypeError('fetch failed', { cause })`, a body cut after the
 * headers errors the stream with `TypeError('terminated', { cause })`, and an abort rejects (or
 * errors the body) with the signal's reason.
 *
 * Not implemented, because no provider call needs it: HTTP/2, proxies from the environment,
 * `credentials`, `cache`, `integrity`. Request bodies other than strings and bytes (a stream, a
 * `Blob`, `FormData`) are buffered before sending. Compressed answers are decoded, but
 * compression is not asked for: LLM answers are small JSON or event streams.
 */
import {
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { pipeline, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

/** Options of {@link createNodeHttpFetch}. */
export interface NodeHttpFetchOptions {
  /** Most sockets open at once per origin; further requests queue. Default 256. */
  maxSockets?: number | undefined;
  /**
   * An idle keep-alive socket is closed after this many ms; a shorter `Keep-Alive: timeout=N`
   * hint from the server wins (Node's agent closes one second before it). Default 4000, as undici.
   */
  idleTimeoutMs?: number | undefined;
}

/** Redirects followed before giving up, as in the fetch standard. */
const MAX_REDIRECTS = 20;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NULL_BODY = new Set([101, 204, 205, 304]);

/** The cause of a body whose connection closed before its end (undici says the same words). */
const closedEarly = () => Object.assign(new Error('other side closed'), { code: 'ECONNRESET' });

const abortReason = (signal: AbortSignal): unknown =>
  signal.reason ?? new DOMException('This operation was aborted', 'AbortError');

/** Request headers as Node wants them: lower-case names, repeated values joined. */
function nodeHeaders(init: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (init === undefined) return out;
  const entries: Iterable<[string, string]> =
    init instanceof Headers
      ? init
      : Array.isArray(init)
        ? (init as [string, string][])
        : Object.entries(init);
  for (const [name, value] of entries) {
    const key = name.toLowerCase();
    out[key] = out[key] === undefined ? value : `${out[key]}, ${value}`;
  }
  return out;
}

/** A string or bytes as they are; anything else serialised by the platform (with its content type). */
async function requestBody(
  body: BodyInit | null | undefined,
): Promise<{ data?: string | Uint8Array; type?: string }> {
  if (body === undefined || body === null) return {};
  if (typeof body === 'string') return { data: body, type: 'text/plain;charset=UTF-8' };
  if (body instanceof ArrayBuffer) return { data: new Uint8Array(body) };
  if (ArrayBuffer.isView(body))
    return { data: new Uint8Array(body.buffer, body.byteOffset, body.byteLength) };
  const serialised = new Response(body);
  return {
    data: new Uint8Array(await serialised.arrayBuffer()),
    type: serialised.headers.get('content-type') ?? undefined,
  };
}

/** The body decoded as its `content-encoding` says (one coding; anything else passes through). */
function decoded(res: IncomingMessage): Readable {
  const coding = res.headers['content-encoding']?.trim().toLowerCase();
  const decoder =
    coding === 'gzip' || coding === 'x-gzip'
      ? createGunzip()
      : coding === 'deflate'
        ? createInflate()
        : coding === 'br'
          ? createBrotliDecompress()
          : undefined;
  if (!decoder) return res;
  return pipeline(res, decoder, () => {});
}

/**
 * The response body as a web stream, pulled from the Node stream with back-pressure. `release`
 * runs exactly once, when the body ends, fails or is cancelled; a source that closes before its
 * end is a cut (`terminated`), as undici reports it.
 */
function webBody(
  res: IncomingMessage,
  release: () => void,
): { stream: ReadableStream<Uint8Array>; fail: (reason: unknown) => void } {
  const source = decoded(res);
  let settled = false;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const settle = (end: () => void) => {
    if (settled) return;
    settled = true;
    release();
    end();
  };
  const fail = (reason: unknown) =>
    settle(() => {
      controller.error(reason);
      res.destroy();
      if (source !== res) source.destroy();
    });
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      source.on('data', (chunk: Buffer) => {
        if (settled) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) source.pause();
      });
      source.once('end', () => settle(() => controller.close()));
      source.on('error', (error) => fail(new TypeError('terminated', { cause: error })));
      source.once('close', () => {
        if (!settled) fail(new TypeError('terminated', { cause: closedEarly() }));
      });
    },
    pull() {
      source.resume();
    },
    cancel() {
      // The reader gave up: free the socket rather than read a body nobody wants.
      settle(() => {
        res.destroy();
        if (source !== res) source.destroy();
      });
    },
  });
  return { stream, fail };
}

/** Where a redirect leads, with the method and body the fetch standard prescribes; else undefined. */
function redirectTarget(
  status: number,
  location: string | undefined,
  from: URL,
  method: string,
): { url: URL; keepBody: boolean; method: string } | undefined {
  if (!REDIRECTS.has(status) || location === undefined) return undefined;
  const toGet = status === 303 ? method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST';
  return { url: new URL(location, from), keepBody: !toGet, method: toGet ? 'GET' : method };
}

interface Attempt {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
  signal: AbortSignal | undefined;
  redirect: RequestRedirect;
}

/**
 * Creates a `fetch` over two keep-alive agents (one for http, one for https) that live as long as
 * the function does: create one per process or per client, not per call.
 */
export function createNodeHttpFetch(options: NodeHttpFetchOptions = {}): typeof fetch {
  const agentOptions = {
    keepAlive: true,
    maxSockets: options.maxSockets ?? 256,
    // Without an agent timeout Node ignores the server's Keep-Alive hint and keeps idle sockets forever.
    timeout: options.idleTimeoutMs ?? 4_000,
    scheduling: 'lifo' as const,
  };
  const agents = { http: new HttpAgent(agentOptions), https: new HttpsAgent(agentOptions) };

  const send = (attempt: Attempt, redirects: number): Promise<Response> =>
    new Promise<Response>((resolve, reject) => {
      const { url, method, signal } = attempt;
      if (signal?.aborted) return reject(abortReason(signal));
      const secure = url.protocol === 'https:';
      if (!secure && url.protocol !== 'http:') {
        return reject(
          new TypeError('fetch failed', { cause: new Error(`unsupported protocol ${url.protocol}`) }),
        );
      }
      const headers: OutgoingHttpHeaders = { ...attempt.headers };
      if (attempt.body !== undefined) headers['content-length'] = Buffer.byteLength(attempt.body);
      const req = (secure ? httpsRequest : httpRequest)(url, {
        method,
        headers,
        agent: secure ? agents.https : agents.http,
      });
      let failBody: ((reason: unknown) => void) | undefined;
      const onAbort = () => {
        const reason = abortReason(signal as AbortSignal);
        if (failBody) failBody(reason);
        else reject(reason);
        req.destroy();
      };
      const release = () => signal?.removeEventListener('abort', onAbort);
      signal?.addEventListener('abort', onAbort, { once: true });

      // `on`, not `once`: a second error event without a listener would crash the process.
      req.on('error', (error) => {
        if (failBody || signal?.aborted) return; // the body stream or the abort reports it
        release();
        reject(new TypeError('fetch failed', { cause: error }));
      });
      req.once('response', (res) => {
        const status = res.statusCode ?? 0;
        const next =
          attempt.redirect === 'manual'
            ? undefined
            : redirectTarget(status, res.headers.location, url, method);
        if (next) {
          res.resume();
          release();
          if (attempt.redirect === 'error' || redirects >= MAX_REDIRECTS) {
            return reject(
              new TypeError('fetch failed', { cause: new Error(`redirect to ${next.url.href}`) }),
            );
          }
          // Credentials stay with their origin; a body turned into a GET loses its content type.
          const sameOrigin = next.url.origin === url.origin;
          const carried = Object.fromEntries(
            Object.entries(attempt.headers).filter(
              ([name]) =>
                !(name === 'authorization' && !sameOrigin) && !(name === 'content-type' && !next.keepBody),
            ),
          );
          return resolve(
            send(
              { ...attempt, ...next, headers: carried, body: next.keepBody ? attempt.body : undefined },
              redirects + 1,
            ),
          );
        }
        const responseHeaders = new Headers();
        const raw = res.rawHeaders;
        for (let i = 0; i + 1 < raw.length; i += 2) responseHeaders.append(raw[i] ?? '', raw[i + 1] ?? '');
        let body: ReadableStream<Uint8Array> | null = null;
        if (method === 'HEAD' || NULL_BODY.has(status)) {
          res.resume();
          release();
        } else {
          const web = webBody(res, release);
          body = web.stream;
          failBody = web.fail;
        }
        let response: Response;
        try {
          response = new Response(body, {
            status,
            statusText: res.statusMessage ?? '',
            headers: responseHeaders,
          });
        } catch (error) {
          // A status outside 200–599 cannot make a Response; undici fails the same way.
          res.destroy();
          release();
          return reject(new TypeError('fetch failed', { cause: error }));
        }
        Object.defineProperty(response, 'url', { value: url.href });
        resolve(response);
      });
      req.end(attempt.body);
    });

  async function nodeHttpFetch(input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
    const request = input instanceof Request ? input : undefined;
    const url = new URL(input instanceof Request ? input.url : input instanceof URL ? input.href : input);
    const method = (init.method ?? request?.method ?? 'GET').toUpperCase();
    const headers = nodeHeaders(init.headers ?? request?.headers);
    const source = init.body ?? (request?.body ? await request.arrayBuffer() : undefined);
    const { data, type } = await requestBody(source);
    if (type !== undefined && headers['content-type'] === undefined) headers['content-type'] = type;
    headers.accept ??= '*/*';
    return send(
      {
        url,
        method,
        headers,
        body: data,
        signal: init.signal ?? request?.signal ?? undefined,
        redirect: init.redirect ?? request?.redirect ?? 'follow',
      },
      0,
    );
  }
  return nodeHttpFetch;
}
