/**
 * The transport of OpenAI-compatible calls: one `POST` over `node:http` / `node:https` keep-alive
 * agents, answered as Node's own `IncomingMessage`. No web `Request`/`Response`/`Headers`, no web
 * streams, no SDK request pipeline: per call that costs a fraction of the CPU (`bench/overhead`).
 *
 * The errors keep the shapes the openai SDK gave them, so that classification is unchanged: a
 * failure before the response is an `APIConnectionError` whose cause is
 * `TypeError('fetch failed', { cause })` (an `APIConnectionTimeoutError` when the transport's
 * words say it timed out), and an abort rejects with the signal's reason. A connection not up
 * within the target's `connectMs` rejects with an `AttemptTimeout` of phase `connect`, which
 * `toProviderError` turns into a `timeout` like the router's own (docs/configuration.md#timeouts).
 */
import {
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { TLSSocket } from 'node:tls';
import { APIConnectionError, APIConnectionTimeoutError } from 'openai/error';
import { AttemptTimeout } from '../../core/failures/attempt-timeout.js';

/** The keep-alive agents calls go through; one pair per process is the default. */
export interface HttpAgents {
  http: HttpAgent;
  https: HttpsAgent;
}

/** Options of {@link createHttpAgents}. */
export interface HttpAgentOptions {
  /** Most sockets open at once per origin; further requests queue. Default 256. */
  maxSockets?: number | undefined;
  /**
   * An idle keep-alive socket is closed after this many ms; a shorter `Keep-Alive: timeout=N`
   * hint from the server wins (Node's agent closes one second before it). Default 4000, as undici.
   */
  idleTimeoutMs?: number | undefined;
}

/** Two keep-alive agents (http and https) that live as long as the process: create them once. */
export function createHttpAgents(options: HttpAgentOptions = {}): HttpAgents {
  const agentOptions = {
    keepAlive: true,
    maxSockets: options.maxSockets ?? 256,
    // Without an agent timeout Node ignores the server's Keep-Alive hint and keeps idle sockets forever.
    timeout: options.idleTimeoutMs ?? 4_000,
    scheduling: 'lifo' as const,
  };
  return { http: new HttpAgent(agentOptions), https: new HttpsAgent(agentOptions) };
}

let shared: HttpAgents | undefined;
/** The process's shared agents, created on first use. */
export function sharedHttpAgents(): HttpAgents {
  shared ??= createHttpAgents();
  return shared;
}

/** The reason an aborted signal gives (a DOMException `AbortError` when it gave none). */
export const abortReason = (signal: AbortSignal): unknown =>
  signal.reason ?? new DOMException('This operation was aborted', 'AbortError');

/** What the openai SDK made of a failure before any response. */
function connectionError(error: Error): Error {
  const failed = new TypeError('fetch failed', { cause: error });
  if (/timed? ?out/i.test(`${String(failed)}${String(failed.cause)}`)) return new APIConnectionTimeoutError();
  return new APIConnectionError({ message: undefined, cause: failed });
}

/** Where a request goes, as `http.request` options: what Node's `urlToHttpOptions` makes of a URL. */
interface Endpoint {
  protocol: string;
  hostname: string;
  port: number | undefined;
  path: string;
  auth: string | undefined;
}

/**
 * Each target URL read into request options once: a `URL` handed to `http.request` is read
 * through its getters (each a call into the URL parser) on every request.
 */
const endpoints = new WeakMap<URL, Endpoint>();
function endpointOf(url: URL): Endpoint {
  let endpoint = endpoints.get(url);
  if (endpoint === undefined) {
    const { hostname, port, username, password } = url;
    endpoint = {
      protocol: url.protocol,
      // `[::1]` names the host `::1`, as Node's own conversion does.
      hostname: hostname.startsWith('[') ? hostname.slice(1, -1) : hostname,
      port: port === '' ? undefined : Number(port),
      path: `${url.pathname}${url.search}`,
      auth:
        username || password ? `${decodeURIComponent(username)}:${decodeURIComponent(password)}` : undefined,
    };
    endpoints.set(url, endpoint);
  }
  return endpoint;
}

/** One endpoint: a URL's origin and path, its agent, and how to post to it. */
export interface PostTarget {
  url: URL;
  agents: HttpAgents;
  /** Longest wait for a new socket's connection, in ms (`timeouts.connectMs`). Default: none (the router's timer alone). */
  connectMs?: number | undefined;
}

/**
 * Destroys `req` with an `AttemptTimeout('connect')` when the new socket it is given is not up
 * after `ms`: TCP connected, and for `https` the TLS handshake done too. A reused keep-alive
 * socket is up already and starts no timer.
 */
function limitConnect(req: ClientRequest, ms: number | undefined): void {
  if (ms === undefined) return;
  req.once('socket', (socket) => {
    if (!socket.connecting) return;
    const timer = setTimeout(() => req.destroy(new AttemptTimeout(ms, 'connect')), ms);
    const clear = () => clearTimeout(timer);
    socket.once(socket instanceof TLSSocket ? 'secureConnect' : 'connect', clear);
    socket.once('close', clear);
  });
}

/**
 * `POST`s `body` to `target.url` and resolves with the response once its headers arrived, whatever
 * its status; `release` must be called once the response is done with (it drops the abort listener).
 * An abort of `signal` before the headers rejects with its reason; after them, it destroys the
 * response with that reason, so that whoever reads the body learns it.
 */
export function post(
  target: PostTarget,
  body: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<{ res: IncomingMessage; release: () => void }> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortReason(signal));
    const { url, agents } = target;
    const secure = url.protocol === 'https:';
    if (!secure && url.protocol !== 'http:') {
      return reject(connectionError(new Error(`unsupported protocol ${url.protocol}`)));
    }
    headers['content-length'] = String(Buffer.byteLength(body));
    const req = (secure ? httpsRequest : httpRequest)({
      ...endpointOf(url),
      method: 'POST',
      headers,
      agent: secure ? agents.https : agents.http,
    });
    limitConnect(req, target.connectMs);
    let res: IncomingMessage | undefined;
    const onAbort = () => {
      const reason = abortReason(signal);
      if (res) res.destroy(reason instanceof Error ? reason : new Error(String(reason)));
      else reject(reason);
      req.destroy();
    };
    const release = () => signal.removeEventListener('abort', onAbort);
    signal.addEventListener('abort', onAbort, { once: true });
    // `on`, not `once`: a second error event without a listener would crash the process.
    req.on('error', (error) => {
      if (res || signal.aborted) return; // the body reader or the abort reports it
      release();
      reject(error instanceof AttemptTimeout ? error : connectionError(error));
    });
    req.once('response', (answer) => {
      res = answer;
      resolve({ res: answer, release });
    });
    req.end(body);
  });
}
