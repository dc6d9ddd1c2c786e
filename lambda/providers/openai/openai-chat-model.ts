import OpenAI from 'openai';
import type {
  CallOptions,
  ChatModel,
  ChatRequest,
  ChatResult,
  ChatStreamEvent,
} from '../../core/chat/chat-model.js';
import { createAttemptCalls } from '../shared/attempt-calls.js';
import type { ErrorSubject } from '../shared/to-provider-error.js';
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
  /** API key sent as a bearer token. Never appears in an error message. */
  apiKey: string;
  /** Fetch implementation. Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** Wall clock in ms, used to read an HTTP-date `Retry-After`. Default `Date.now`. */
  now?: () => number;
}

/** The SDK wants a positive integer; an attempt with no time left still gets one millisecond. */
function sdkTimeout(timeoutMs: number): number {
  return Math.max(1, Math.ceil(timeoutMs));
}

/**
 * A `ChatModel` over any OpenAI-compatible Chat Completions endpoint (OpenAI, Gemini's and
 * Vertex's compatible endpoints, OpenRouter, Together, Groq, a local fake).
 *
 * SDK retries are off (`maxRetries: 0`): retry and fallback belong to the attempt loop. The SDK
 * `timeout` is the attempt's `timeoutMs`; our own timer covers the whole `generate` call and a
 * stream's time to first chunk (the SDK's timer stops at response headers). Every failure is a
 * `ProviderError` whose `model` is the model key.
 */
export function createOpenAIChatModel(options: OpenAIChatModelOptions): ChatModel {
  const { key, provider, model } = options;
  const now = options.now ?? Date.now;
  const subject: ErrorSubject = { provider, model: key };
  // One client per model object: it holds the connection pool. Organization and project are
  // pinned to null so OPENAI_ORG_ID / OPENAI_PROJECT_ID never leak to non-OpenAI endpoints. The
  // SDK's logger is off (it wins over OPENAI_LOG): it prints raw SSE data, i.e. output text, when
  // a chunk does not parse, and the attempt ledger is our only log.
  const client = new OpenAI({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    maxRetries: 0,
    organization: null,
    project: null,
    logLevel: 'off',
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });

  const calls = createAttemptCalls(subject, now);

  const generate = (request: ChatRequest, call: CallOptions): Promise<ChatResult> =>
    calls.generate(
      call,
      (signal) =>
        client.chat.completions.create(toOpenAIParams(request, model), {
          signal,
          timeout: sdkTimeout(call.timeoutMs),
        }),
      (body) => mapOpenAICompletion(body, subject),
    );

  const stream = (request: ChatRequest, call: CallOptions): AsyncGenerator<ChatStreamEvent> =>
    calls.stream(
      call,
      (signal) =>
        client.chat.completions.create(toOpenAIStreamParams(request, model), {
          signal,
          timeout: sdkTimeout(call.timeoutMs),
        }),
      createOpenAIStreamMapper(subject),
    );

  return { key, provider, generate, stream };
}
