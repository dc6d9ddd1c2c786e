/**
 * A `fetch` for the Anthropic SDK over Switchyard's own keep-alive transport
 * (`providers/openai/http-transport.ts`): the same process-wide `node:http(s)` agents and the
 * same per-socket connect limit as OpenAI-compatible calls, instead of a second connection pool
 * in undici. It implements what `messages.create` uses and nothing more: a `POST` with a string
 * body, headers and a signal, answered with a `Response` whose body is streamed as it arrives.
 * Compression is never asked for, so bodies pass as sent.
 */
import { Readable } from 'node:stream';
import { type HttpAgents, post, sharedHttpAgents } from '../openai/http-transport.js';
import { webHeaders } from '../openai/response-body.js';

/** Options of {@link createAgentFetch}. */
export interface AgentFetchOptions {
  /** Keep-alive agents the calls go through. Default: the process's shared pair. */
  agents?: HttpAgents | undefined;
  /** Longest wait for a new socket's connection, in ms; a miss rejects with `AttemptTimeout('connect')`. Default: none. */
  connectMs?: number | undefined;
}

/** Statuses whose response has no body. */
const NULL_BODY = new Set([101, 204, 205, 304]);

function requestHeaders(init: RequestInit): Record<string, string> {
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

/**
 * Creates the fetch. Rejects with a `TypeError` for anything but a `POST` with a string body;
 * transport failures reject as `post` does (the openai SDK's connection errors, an abort with the
 * signal's reason), so classification reads them as it reads OpenAI-compatible failures.
 */
export function createAgentFetch(options: AgentFetchOptions = {}): typeof fetch {
  const agents = options.agents ?? sharedHttpAgents();
  return async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : input instanceof URL ? input.href : input);
    if ((init.method ?? 'GET').toUpperCase() !== 'POST' || typeof init.body !== 'string') {
      throw new TypeError('agent fetch sends only POST requests with a string body');
    }
    const signal = init.signal ?? new AbortController().signal;
    const target = { url, agents, connectMs: options.connectMs };
    const { res, release } = await post(target, init.body, requestHeaders(init), signal);
    res.once('close', release);
    const status = res.statusCode ?? 0;
    if (NULL_BODY.has(status)) res.resume();
    const body = NULL_BODY.has(status) ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
    return new Response(body, { status, statusText: res.statusMessage ?? '', headers: webHeaders(res) });
  };
}
