/**
 * A `fetch` for the Anthropic SDK over Switchyard's own keep-alive transport
 * (`providers/openai/http-transport.ts`): the same process-wide `node:http(s)` agents and the
 * same per-socket connect limit as OpenAI-compatible calls, instead of a second connection pool
 * in undici. It implements what `messages.create` uses and nothing more: a `POST` with a string
 * body, headers and a signal, answered with a `Response` whose body is streamed as it arrives.
 * Compression is never asked for, so bodies pass as sent.
 *
 * Every body is bounded while it is read (docs/security.md#bounded-upstream-reads): an event
 * stream per event, anything else whole. An error status's body is read here, before the SDK
 * sees the response, so that one over the bound rejects the fetch itself with the
 * `malformed_response` (the SDK would turn a failed read of an error body into the status's error).
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { AnswerMeters } from '../shared/answer-limits.js';
import { boundedStream } from '../shared/bounded-stream.js';
import { type HttpAgents, post, sharedHttpAgents } from '../shared/http-transport.js';
import { readText, webHeaders } from '../shared/response-body.js';

/** Options of {@link createAgentFetch}. */
export interface AgentFetchOptions {
  /** Keep-alive agents the calls go through. Default: the process's shared pair. */
  agents?: HttpAgents | undefined;
  /** Longest wait for a new socket's connection, in ms; a miss rejects with `AttemptTimeout('connect')`. Default: none. */
  connectMs?: number | undefined;
  /** How each body is bounded; over a bound, the read fails with the meter's `malformed_response`. */
  meters: AnswerMeters;
  /**
   * True for the fetch of streamed calls: a `text/event-stream` answer is then bounded per
   * event. Otherwise every body is bounded whole, whatever its content type says. Default false.
   */
  stream?: boolean | undefined;
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
export function createAgentFetch(options: AgentFetchOptions): typeof fetch {
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
    const responseInit = { status, statusText: res.statusMessage ?? '', headers: webHeaders(res) };
    if (NULL_BODY.has(status)) {
      res.resume();
      return new Response(null, responseInit);
    }
    if (status < 200 || status >= 300) {
      return new Response(await errorBody(res, signal, options.meters), responseInit);
    }
    const meter = options.stream && isEventStream(res) ? options.meters.sse() : options.meters.body();
    const body = Readable.toWeb(boundedStream(res, meter)) as ReadableStream<Uint8Array>;
    return new Response(body, responseInit);
  };
}

const isEventStream = (res: IncomingMessage) =>
  res.headers['content-type']?.split(';')[0]?.trim().toLowerCase() === 'text/event-stream';

/** An error status's whole body, bounded; a body that fails otherwise keeps the words it failed with, as the SDK kept them. */
async function errorBody(res: IncomingMessage, signal: AbortSignal, meters: AnswerMeters): Promise<string> {
  const meter = meters.body();
  try {
    return await readText(res, signal, meter);
  } catch (error) {
    const tooLarge = meter.exceeded();
    if (tooLarge) throw tooLarge;
    return error instanceof Error ? error.message : String(error);
  }
}
