import {
  BedrockRuntimeClient,
  type BedrockRuntimeClientConfig,
  ConverseCommand,
  ConverseStreamCommand,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { MiddlewareStack, SerializeMiddleware } from '@smithy/types';
import type {
  CallOptions,
  ChatModel,
  ChatRequest,
  ChatResult,
  ChatStreamEvent,
} from '../../core/chat/chat-model.js';
import { AttemptTimeout } from '../../core/failures/attempt-timeout.js';
import type { ProviderError } from '../../core/failures/provider-error.js';
import { type AnswerLimits, createAnswerMeters, DEFAULT_ANSWER_LIMITS } from '../shared/answer-limits.js';
import { createAttemptCalls } from '../shared/attempt-calls.js';
import { type ErrorSubject, malformedResponse } from '../shared/malformed-response.js';
import { type SerialisationWatch, watchSerialisation } from '../shared/wire-body.js';
import { missingCredentials } from './bedrock-credentials.js';
import { toConverseBody } from './bedrock-request.js';
import { createBedrockStreamMapper, mapConverseResponse } from './bedrock-response.js';
import { BEDROCK_SIGNALS } from './bedrock-signals.js';
import { boundResponseBody } from './bounded-response.js';

/** Static credentials or a credential provider, as the Bedrock Runtime client accepts them. */
export type BedrockCredentials = NonNullable<BedrockRuntimeClientConfig['credentials']>;

/** Options of {@link createBedrockChatModel}. */
export interface BedrockChatModelOptions {
  /** Model key from the catalog, e.g. `llama-br`; used in every `ProviderError`. */
  key: string;
  /** Provider name from the config, e.g. `bedrock`. */
  provider: string;
  /** Raw Bedrock model or inference-profile id, e.g. `meta.llama3-3-70b-instruct-v1:0`. */
  model: string;
  /** AWS region, e.g. `us-east-1`. */
  region: string;
  /** Endpoint override, e.g. a local fake at `http://127.0.0.1:4010`. Default: the regional endpoint. */
  endpoint?: string;
  /** Credentials. Default: the SDK's provider chain (env, profile, Lambda role). */
  credentials?: BedrockCredentials;
  /**
   * Longest wait for a new connection, in ms (the route's `timeouts.connectMs`). Applies over the
   * HTTP/1.1 handler (an `http://` endpoint); the SDK's default HTTP/2 handler has no such limit,
   * so there the first-byte limit covers the connection. Default: none.
   */
  connectMs?: number | undefined;
  /** A ready client (tests, shared pools). When given, `region`, `endpoint` and `credentials` are ignored. */
  client?: BedrockRuntimeClient;
  /** Wall clock in ms, used to read an HTTP-date `Retry-After`. Default `Date.now`. */
  now?: () => number;
  /** Bounds on what one attempt reads (`limits.maxUpstream*`). Default: the config's defaults. */
  limits?: AnswerLimits | undefined;
}

/**
 * Builds the client once per model object. `maxAttempts: 1` turns SDK retries off (the attempt
 * loop owns retry and fallback). The default HTTP/2 handler cannot talk to a plain `node:http`
 * server, so an `http://` endpoint gets the HTTP/1.1 `NodeHttpHandler`.
 */
function createClient(options: BedrockChatModelOptions): BedrockRuntimeClient {
  const { endpoint, credentials } = options;
  return new BedrockRuntimeClient({
    region: options.region,
    maxAttempts: 1,
    ...(endpoint === undefined ? {} : { endpoint }),
    ...(credentials === undefined ? {} : { credentials }),
    ...(endpoint?.startsWith('http://')
      ? { requestHandler: new NodeHttpHandler({ connectionTimeout: options.connectMs }) }
      : {}),
  });
}

/**
 * A `ChatModel` over the Bedrock Runtime Converse API (`ConverseCommand`,
 * `ConverseStreamCommand`).
 *
 * The attempt's time is the router's, applied through the abort signal handed to `send`: it
 * bounds the whole `generate` call (whose response headers are reported as its first byte, from
 * a middleware below the deserializer) and a stream's time to first event. The client's HTTP
 * handlers get no request timeout of their own (Smithy sets none by default), so no second clock
 * races it; the one socket-level limit is `connectMs`, turned into an `AttemptTimeout('connect')`.
 * Every body is bounded while the client reads it (`bounded-response.ts`): a JSON body whole,
 * an event stream per message. Every failure, including exception events inside the stream, is a
 * `ProviderError` whose `model` is the model key.
 */
export function createBedrockChatModel(options: BedrockChatModelOptions): ChatModel {
  const { key, provider, model } = options;
  const now = options.now ?? Date.now;
  const subject: ErrorSubject = { provider, model: key };
  const client = options.client ?? createClient(options);

  const calls = createAttemptCalls(subject, now, BEDROCK_SIGNALS);
  const meters = createAnswerMeters(options.limits ?? DEFAULT_ANSWER_LIMITS, subject);

  const generate = (request: ChatRequest, call: CallOptions): Promise<ChatResult> =>
    calls.generate(
      call,
      () => toConverseBody(request, model, subject),
      async (body, abortSignal) => {
        const command = new ConverseCommand(body);
        const watch = watchSerialiser(command.middlewareStack, watchSerialisation(subject, body));
        reportFirstByte(command, call.onFirstByte);
        const tooLarge = boundResponseBody(command, meters, false);
        try {
          return await client.send(command, { abortSignal });
        } catch (error) {
          throw (
            tooLarge() ?? connectTimeout(watch.judge(missingCredentials(error, subject)), options.connectMs)
          );
        }
      },
      (response) => mapConverseResponse(response, subject),
    );

  const stream = (request: ChatRequest, call: CallOptions): AsyncGenerator<ChatStreamEvent> =>
    calls.stream(
      call,
      () => toConverseBody(request, model, subject),
      async (body, abortSignal) => {
        const command = new ConverseStreamCommand(body);
        const watch = watchSerialiser(command.middlewareStack, watchSerialisation(subject, body));
        const tooLarge = boundResponseBody(command, meters, true);
        const response = await client.send(command, { abortSignal }).catch((error: unknown) => {
          throw (
            tooLarge() ?? connectTimeout(watch.judge(missingCredentials(error, subject)), options.connectMs)
          );
        });
        if (response.stream === undefined) throw malformedResponse(subject, 'response has no event stream');
        return rethrowTooLarge(response.stream, tooLarge);
      },
      createBedrockStreamMapper(subject),
    );

  return { key, provider, generate, stream };
}

/** The stream's events; a read cut at its bound fails with our `malformed_response`, however the SDK wrapped it. */
async function* rethrowTooLarge<E>(
  events: AsyncIterable<E>,
  tooLarge: () => ProviderError | undefined,
): AsyncGenerator<E> {
  try {
    yield* events;
  } catch (error) {
    throw tooLarge() ?? error;
  }
}

/**
 * Marks the SDK's own serialisation of `command`'s input on `watch`: its start right after the
 * endpoint is resolved (credentials and endpoint come before, and are not the request's), its
 * end right after the serializer. Smithy names both middlewares; a stack without them fails every
 * call at once (the provider tests would say so), never silently.
 */
function watchSerialiser<I extends object, O extends object>(
  stack: MiddlewareStack<I, O>,
  watch: SerialisationWatch,
): SerialisationWatch {
  const mark =
    (step: () => void): SerializeMiddleware<I, O> =>
    (next) =>
    (args) => {
      step();
      return next(args);
    };
  stack.addRelativeTo(mark(watch.serialising), {
    relation: 'after',
    toMiddleware: 'endpointV2Middleware',
    name: 'switchyardSerialising',
  });
  stack.addRelativeTo(mark(watch.serialised), {
    relation: 'after',
    toMiddleware: 'serializerMiddleware',
    name: 'switchyardSerialised',
  });
  return watch;
}

/**
 * Calls `onFirstByte` when the raw response (its headers) comes back from the HTTP handler,
 * before the deserializer reads the body: the lowest-priority middleware of the deserialize step
 * sits between the two.
 */
function reportFirstByte(command: ConverseCommand, onFirstByte: (() => void) | undefined): void {
  if (!onFirstByte) return;
  command.middlewareStack.add(
    (next) => async (args) => {
      const output = await next(args);
      onFirstByte();
      return output;
    },
    { step: 'deserialize', priority: 'low', name: 'switchyardFirstByte' },
  );
}

/** Smithy's HTTP/1.1 connection timeout, as the attempt's `connect` timeout; anything else as it is. */
function connectTimeout(error: unknown, connectMs: number | undefined): unknown {
  const connectFailed =
    connectMs !== undefined &&
    error instanceof Error &&
    error.name === 'TimeoutError' &&
    error.message.includes('did not establish a connection');
  return connectFailed ? new AttemptTimeout(connectMs, 'connect') : error;
}
