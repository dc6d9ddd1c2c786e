import OpenAI from 'openai';
import type {
  CallOptions,
  ChatModel,
  ChatRequest,
  ChatResult,
  ChatStreamEvent,
} from '../../core/chat/chat-model.js';
import { createAttemptCalls } from '../shared/attempt-calls.js';
import type { ErrorSubject } from '../shared/malformed-response.js';
import { toOpenAIParams, toOpenAIStreamParams } from './openai-request.js';
import { createOpenAIStreamMapper, mapOpenAICompletion } from './openai-response.js';

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
   * function may throw a `ProviderError` (e.g. `not_configured`), which the call rethrows as is.
   * Never appears in an error message.
   */
  apiKey: string | (() => string);
  /** Fetch implementation. Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** Wall clock in ms, used to read an HTTP-date `Retry-After`. Default `Date.now`. */
  now?: () => number;
}

/** Stands in for the key at construction; every request overrides it with its own header. */
const PER_CALL_KEY = 'set-per-call';

/**
 * The SDK always arms a timer of its own (until response headers) and wants a positive integer:
 * the largest delay a Node timer takes (about 24.8 days), so that it never fires before the
 * attempt's signal does. The router's deadline is the attempt's only clock.
 */
const SDK_TIMEOUT_NEVER = 2_147_483_647;

/**
 * `X-Stainless-Timeout` tells the upstream how long the client waits, in whole seconds: the
 * attempt's time, as the SDK would have said had it owned the timeout.
 */
function stainlessTimeout(timeoutMs: number): string {
  return String(Math.trunc(Math.max(1, Math.ceil(timeoutMs)) / 1000));
}

/**
 * A `ChatModel` over any OpenAI-compatible Chat Completions endpoint (OpenAI, Gemini's and
 * Vertex's compatible endpoints, OpenRouter, Together, Groq, a local fake).
 *
 * SDK retries are off (`maxRetries: 0`): retry and fallback belong to the attempt loop. The
 * attempt's time is the router's: its signal bounds the whole `generate` call and a stream's time
 * to first chunk, and the SDK's own timeout never fires first. Every failure is a `ProviderError`
 * whose `model` is the model key.
 */
export function createOpenAIChatModel(options: OpenAIChatModelOptions): ChatModel {
  const { key, provider, model } = options;
  const now = options.now ?? Date.now;
  const subject: ErrorSubject = { provider, model: key };
  const { apiKey } = options;
  const currentKey = typeof apiKey === 'string' ? () => apiKey : apiKey;
  // One client per model object: it holds the connection pool. It holds no key: each call reads
  // the current one and sends it as that request's own `Authorization` header, which replaces the
  // client's (the placeholder below only satisfies the constructor and never leaves the process).
  // Organization and project are pinned to null so OPENAI_ORG_ID / OPENAI_PROJECT_ID never leak
  // to non-OpenAI endpoints. The SDK's logger is off (it wins over OPENAI_LOG): it prints raw SSE
  // data, i.e. output text, when a chunk does not parse, and the attempt ledger is our only log.
  const client = new OpenAI({
    apiKey: PER_CALL_KEY,
    baseURL: options.baseURL,
    maxRetries: 0,
    organization: null,
    project: null,
    logLevel: 'off',
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });

  const calls = createAttemptCalls(subject, now);

  // Read at the start of each call: a missing key fails this attempt before any request is sent.
  const requestOptions = (signal: AbortSignal, call: CallOptions) => ({
    signal,
    timeout: SDK_TIMEOUT_NEVER,
    headers: {
      Authorization: `Bearer ${currentKey()}`,
      'X-Stainless-Timeout': stainlessTimeout(call.timeoutMs),
    },
  });

  const generate = (request: ChatRequest, call: CallOptions): Promise<ChatResult> =>
    calls.generate(
      call,
      (signal) =>
        client.chat.completions.create(toOpenAIParams(request, model), requestOptions(signal, call)),
      (body) => mapOpenAICompletion(body, subject),
    );

  const stream = (request: ChatRequest, call: CallOptions): AsyncGenerator<ChatStreamEvent> =>
    calls.stream(
      call,
      (signal) =>
        client.chat.completions.create(toOpenAIStreamParams(request, model), requestOptions(signal, call)),
      createOpenAIStreamMapper(subject),
    );

  return { key, provider, generate, stream };
}
