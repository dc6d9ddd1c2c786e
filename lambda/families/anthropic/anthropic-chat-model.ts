import type { Middleware } from '@anthropic-ai/sdk';
import { BaseAnthropic } from '@anthropic-ai/sdk/client';
import { Messages } from '@anthropic-ai/sdk/resources/messages/messages';
import type {
  CallOptions,
  ChatModel,
  ChatRequest,
  ChatResult,
  ChatStreamEvent,
} from '../../core/chat/chat-model.js';
import { AttemptTimeout } from '../../core/failures/attempt-timeout.js';
import { ProviderError } from '../../core/failures/provider-error.js';
import { type AnswerLimits, createAnswerMeters, DEFAULT_ANSWER_LIMITS } from '../shared/answer-limits.js';
import { createAttemptCalls } from '../shared/attempt-calls.js';
import type { HttpAgents } from '../shared/http-transport.js';
import type { ErrorSubject } from '../shared/malformed-response.js';
import { serialiseWire } from '../shared/wire-body.js';
import { createAgentFetch } from './agent-fetch.js';
import { toAnthropicCountParams, toAnthropicParams } from './anthropic-request.js';
import {
  createAnthropicStreamMapper,
  mapAnthropicMessage,
  mapAnthropicTokenCount,
} from './anthropic-response.js';
import { ANTHROPIC_SIGNALS } from './anthropic-signals.js';

/** Options of {@link createAnthropicChatModel}. */
export interface AnthropicChatModelOptions {
  /** Model key from the catalog, e.g. `claude-fast`; used in every `ProviderError`. */
  key: string;
  /** Provider name from the config, e.g. `anthropic`. */
  provider: string;
  /** Raw upstream model id sent in the request, e.g. `claude-haiku-4-5`. */
  model: string;
  /** API root, always honoured, e.g. `https://api.anthropic.com`. */
  baseURL: string;
  /**
   * The API key: a fixed key, or a function read at the start of every call (a rotated key is
   * used at once). The function may throw a `ProviderError` (`not_configured`), which fails the
   * call before any request is sent. Never appears in an error message.
   */
  apiKey: string | (() => string);
  /** `max_tokens` when the request sets none (the Messages API requires it). */
  defaultMaxTokens: number;
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
 * The official client with the one resource the adapter calls: the SDK's tree-shakeable form
 * (`BaseAnthropic` plus `Messages`), which keeps about 300 KiB of unused resources and helpers out
 * of the Lambda bundle (`bench/README.md#lambda-cold-start`).
 */
class MessagesClient extends BaseAnthropic {
  messages: Messages = new Messages(this);
}

/**
 * The SDK's own timer bounds only the wait for headers; it is set past the attempt's time so that
 * the router's timer (the attempt's one clock) always fires first.
 */
const SDK_TIMER_SLACK_MS = 1_000;

/**
 * A `ChatModel` over Anthropic's Messages API through the official SDK: retries off (the attempt
 * loop owns retry and fallback), the attempt's signal on every call, and the process's keep-alive
 * agents (`agent-fetch.ts`). Per call, one SDK middleware reports the first byte (the response
 * headers) and keeps the transport's connect timeout, which the SDK would otherwise flatten into
 * a phase-less "Request timed out.", and an error body over its bound (`agent-fetch.ts`), which
 * the SDK would wrap as a connection error. Every failure is a `ProviderError` whose `model` is
 * the model key.
 */
export function createAnthropicChatModel(options: AnthropicChatModelOptions): ChatModel {
  const { key, provider, model, apiKey, defaultMaxTokens } = options;
  const subject: ErrorSubject = { provider, model: key };
  const currentKey = typeof apiKey === 'string' ? () => apiKey : apiKey;
  const meters = createAnswerMeters(options.limits ?? DEFAULT_ANSWER_LIMITS, subject);
  // One client per kind of call: only the stream's fetch may read an event stream event by event
  // (a plain call answered with `text/event-stream` would still be buffered whole by the SDK).
  const clientFor = (stream: boolean) =>
    new MessagesClient({
      apiKey: async () => currentKey(),
      baseURL: options.baseURL,
      maxRetries: 0,
      logLevel: 'off',
      fetch: createAgentFetch({ agents: options.agents, connectMs: options.connectMs, meters, stream }),
    });
  const client = clientFor(false);
  const streamClient = clientFor(true);
  const calls = createAttemptCalls(subject, options.now ?? Date.now, ANTHROPIC_SIGNALS);
  /** The params (the SDK reads `stream` and `model` from them) and the body sent, serialised here. */
  const wire = <P>(params: P) => ({ params, body: serialiseWire(subject, params) });

  /**
   * Request options of one call; `failure()` is what the transport failed with when it decided
   * itself: the connect timeout, or an error body over its bound. `body` is the wire body we
   * serialised in the attempt's local step: the SDK sends a string body with a `content-type` as
   * it is, so its own serialiser never meets the request (a failure there would look like the
   * upstream's).
   */
  const requestOptions = (signal: AbortSignal, call: CallOptions, reportFirstByte: boolean, body: string) => {
    let transportFailure: AttemptTimeout | ProviderError | undefined;
    const middleware: Middleware = async (request, next) => {
      try {
        const response = await next(request);
        if (reportFirstByte) call.onFirstByte?.();
        return response;
      } catch (error) {
        if (error instanceof AttemptTimeout || error instanceof ProviderError) transportFailure = error;
        throw error;
      }
    };
    const timeout = Math.ceil(call.timeoutMs) + SDK_TIMER_SLACK_MS;
    return {
      options: {
        signal,
        timeout,
        middleware: [middleware],
        body,
        headers: { 'content-type': 'application/json' },
      },
      failure: () => transportFailure,
    };
  };

  const generate = (request: ChatRequest, call: CallOptions): Promise<ChatResult> =>
    calls.generate(
      call,
      () => wire(toAnthropicParams(request, model, defaultMaxTokens, subject)),
      async ({ params, body }, signal) => {
        const sent = requestOptions(signal, call, true, body);
        try {
          return await client.messages.create(params, sent.options);
        } catch (error) {
          throw sent.failure() ?? error;
        }
      },
      (body) => mapAnthropicMessage(body, subject),
    );

  const stream = (request: ChatRequest, call: CallOptions): AsyncGenerator<ChatStreamEvent> =>
    calls.stream(
      call,
      () => wire({ ...toAnthropicParams(request, model, defaultMaxTokens, subject), stream: true as const }),
      async ({ params, body }, signal) => {
        const sent = requestOptions(signal, call, false, body);
        try {
          return await streamClient.messages.create(params, sent.options);
        } catch (error) {
          throw sent.failure() ?? error;
        }
      },
      createAnthropicStreamMapper(subject),
    );

  /** Counted by the Messages API's own `count_tokens`, under the same attempt discipline (no breaker, no ledger). */
  const countTokens = (request: ChatRequest, call: CallOptions): Promise<number> =>
    calls.generate(
      call,
      () => wire(toAnthropicCountParams(request, model, subject)),
      async ({ params, body }, signal) => {
        const sent = requestOptions(signal, call, true, body);
        try {
          return await client.messages.countTokens(params, sent.options);
        } catch (error) {
          throw sent.failure() ?? error;
        }
      },
      (body) => mapAnthropicTokenCount(body, subject),
    );

  return { key, provider, generate, stream, countTokens };
}
