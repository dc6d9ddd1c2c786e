import type { IncomingMessage } from 'node:http';
import type {
  CallOptions,
  ChatModel,
  ChatRequest,
  ChatResult,
  ChatStreamEvent,
} from '../../core/chat/chat-model.js';
import type { EmbeddingRequest, EmbeddingResult } from '../../core/embeddings/embedding-model.js';
import {
  type AnswerLimits,
  type AnswerMeters,
  createAnswerMeters,
  DEFAULT_ANSWER_LIMITS,
  EMBEDDING_BYTES_PER_NUMBER,
} from '../shared/answer-limits.js';
import { createAttemptCalls } from '../shared/attempt-calls.js';
import { type HttpAgents, type PostTarget, post, sharedHttpAgents } from '../shared/http-transport.js';
import type { ErrorSubject } from '../shared/malformed-response.js';
import { isOk, readAnswer, statusError } from '../shared/response-body.js';
import { serialiseWire } from '../shared/wire-body.js';
import { OPENAI_COMPATIBLE_SIGNALS } from './openai-compatible-signals.js';
import { mapOpenAIEmbeddings, toOpenAIEmbeddingParams } from './openai-embeddings.js';
import { toOpenAIParams, toOpenAIStreamParams } from './openai-request.js';
import { createOpenAIStreamMapper, mapOpenAICompletion } from './openai-response.js';
import { sseChunks } from './sse-events.js';

/** Options of {@link createOpenAIChatModel}. */
export interface OpenAIChatModelOptions {
  /** Model key from the catalog, e.g. `gpt-mini`; used in every `ProviderError`. */
  key: string;
  /** Provider name from the config, e.g. `openai`. */
  provider: string;
  /** Raw upstream model id sent in the request, e.g. `gpt-4o-mini`. */
  model: string;
  /** Base URL of the OpenAI-compatible API, always honoured, e.g. `https://api.openai.com/v1`. */
  baseURL: string;
  /**
   * API key sent as a bearer token: a fixed key, or a function read at the start of every call
   * (so a rotated or newly written key is used at once, on the same connection pool). The
   * function gets the attempt's signal and may answer later (an OAuth access token being
   * minted, `providers/vertex`); it may throw a `ProviderError` (e.g. `not_configured`), which
   * the call rethrows as is. Never appears in an error message.
   */
  apiKey: string | ((signal: AbortSignal) => string | Promise<string>);
  /** Longest wait for a new connection, in ms (the route's `timeouts.connectMs`). Default: none. */
  connectMs?: number | undefined;
  /** Keep-alive agents the calls go through. Default: the process's shared pair. */
  agents?: HttpAgents | undefined;
  /** Wall clock in ms, used to read an HTTP-date `Retry-After`. Default `Date.now`. */
  now?: () => number;
  /** Bounds on what one attempt reads (`limits.maxUpstream*`). Default: the config's defaults. */
  limits?: AnswerLimits | undefined;
}

/**
 * `X-Stainless-Timeout` tells the upstream how long the client waits, in whole seconds: the
 * attempt's time, as the openai SDK says it.
 */
function stainlessTimeout(timeoutMs: number): string {
  return String(Math.trunc(Math.max(1, Math.ceil(timeoutMs)) / 1000));
}

/** `{baseURL}/{path}`, joined as the openai SDK joins it. */
function endpointURL(baseURL: string, path: string): URL {
  return new URL(`${baseURL.endsWith('/') ? baseURL.slice(0, -1) : baseURL}/${path}`);
}

/**
 * A `ChatModel` over any OpenAI-compatible Chat Completions endpoint (OpenAI, Gemini's and
 * Vertex's compatible endpoints, OpenRouter, Together, Groq, a local fake).
 *
 * Each call is one `POST` over a keep-alive `node:http(s)` agent (`http-transport.ts`): the body
 * is built and serialised once from the request, in the attempt's local step (a failure there is
 * the caller's `invalid_request`, `shared/wire-body.ts`), and the answer read from Node's own response, with the errors
 * the openai SDK gave (its error classes), so classification is the SDK's. No retries: retry and
 * fallback belong to the attempt loop. The attempt's time is the router's: its signal bounds the
 * whole `generate` call (reported first byte: the response headers) and a stream's time to first
 * chunk; the only timer here is the transport's connect limit (`connectMs`). Every
 * failure is a `ProviderError` whose `model` is the model key.
 */
export function createOpenAIChatModel(options: OpenAIChatModelOptions): ChatModel {
  const { key, provider, model, apiKey } = options;
  const now = options.now ?? Date.now;
  const subject: ErrorSubject = { provider, model: key };
  const currentKey = typeof apiKey === 'string' ? () => apiKey : apiKey;
  const target: PostTarget = {
    url: endpointURL(options.baseURL, 'chat/completions'),
    agents: options.agents ?? sharedHttpAgents(),
    connectMs: options.connectMs,
  };
  const embeddings: PostTarget = { ...target, url: endpointURL(options.baseURL, 'embeddings') };
  const calls = createAttemptCalls(subject, now, OPENAI_COMPATIBLE_SIGNALS);
  const meters: AnswerMeters = createAnswerMeters(options.limits ?? DEFAULT_ANSWER_LIMITS, subject);

  // Read at the start of each call: a missing key fails this attempt before any request is sent.
  // Organization and project headers are never sent (OPENAI_ORG_ID must not leak to other hosts).
  const headers = async (call: CallOptions, signal: AbortSignal): Promise<Record<string, string>> => ({
    accept: 'application/json',
    'content-type': 'application/json',
    authorization: `Bearer ${await currentKey(signal)}`,
    'x-stainless-timeout': stainlessTimeout(call.timeoutMs),
  });

  /** Sends `body`; resolves with the response when it is a 2xx, else throws the SDK's status error. */
  const send = async (body: string, call: CallOptions, signal: AbortSignal, to: PostTarget = target) => {
    const { res, release } = await post(to, body, await headers(call, signal), signal);
    if (!isOk(res)) {
      try {
        throw await statusError(res, signal, meters.body());
      } finally {
        release();
      }
    }
    return { res, release };
  };

  const generate = (request: ChatRequest, call: CallOptions): Promise<ChatResult> =>
    calls.generate(
      call,
      () => serialiseWire(subject, toOpenAIParams(request, model, subject)),
      async (body, signal) => {
        const { res, release } = await send(body, call, signal);
        // The headers are the first byte of a plain answer: the router's timer moves on to the total.
        call.onFirstByte?.();
        try {
          return await readAnswer(res, signal, meters.body());
        } finally {
          release();
        }
      },
      (body) => mapOpenAICompletion(body, subject),
    );

  const stream = (request: ChatRequest, call: CallOptions): AsyncGenerator<ChatStreamEvent> =>
    calls.stream(
      call,
      () => serialiseWire(subject, toOpenAIStreamParams(request, model, subject)),
      async (body, signal) => {
        const { res, release } = await send(body, call, signal);
        return chunksOf(res, signal, release, meters);
      },
      createOpenAIStreamMapper(subject),
    );

  const embed = (request: EmbeddingRequest, call: CallOptions): Promise<EmbeddingResult> =>
    calls.generate(
      call,
      () => serialiseWire(subject, toOpenAIEmbeddingParams(request, model)),
      async (body, signal) => {
        const { res, release } = await send(body, call, signal, embeddings);
        call.onFirstByte?.();
        // Many vectors are a big answer the caller asked for: the bound grows with the numbers asked.
        const asked = request.input.length * request.dimensions * EMBEDDING_BYTES_PER_NUMBER;
        try {
          return await readAnswer(res, signal, meters.body(asked));
        } finally {
          release();
        }
      },
      (body) => mapOpenAIEmbeddings(body, subject, request),
    );

  return { key, provider, generate, stream, embed };
}

/** The stream's chunks; a reader that stops early (or a failure) frees the socket. */
async function* chunksOf(
  res: IncomingMessage,
  signal: AbortSignal,
  release: () => void,
  meters: AnswerMeters,
): AsyncGenerator<unknown> {
  let ended = false;
  try {
    yield* sseChunks(res, signal, meters.sse());
    ended = true;
  } finally {
    release();
    if (!ended) res.destroy();
  }
}
