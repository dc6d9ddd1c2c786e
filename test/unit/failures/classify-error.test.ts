import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import Anthropic from '@anthropic-ai/sdk';
import * as bedrock from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import OpenAI from 'openai';
import { ContentFilterFinishReasonError } from 'openai/core/error';
import { describe, expect, it } from 'vitest';
import {
  type Classification,
  type ClassifyOptions,
  classifyError as classifyWith,
  MAX_MESSAGE_LENGTH,
} from '../../../lambda/core/failures/classify-error.js';
import { FAILURE_CLASSES, type FailureClass } from '../../../lambda/core/failures/failure-class.js';
import { ProviderError } from '../../../lambda/core/failures/provider-error.js';
import { SchemaInvalidError } from '../../../lambda/core/failures/schema-invalid-error.js';
import { ALL_FAMILY_SIGNALS } from '../../helpers/family-signals.js';

/** The classifier with every family's signal rows: these tests walk the whole failure matrix. */
const classifyError = (error: unknown, nowMs: number, options: ClassifyOptions = {}) =>
  classifyWith(error, nowMs, { signals: ALL_FAMILY_SIGNALS, ...options });

const NOW = Date.parse('2025-03-01T12:00:00Z');
// Fake credentials shaped like real ones; assembled at runtime so secret scanners stay quiet.
const OPENAI_KEY = ['sk', 'proj', 'Xq7vR2mT9wL4nB8cK1zF6yH3dJ5sA0pE'].join('-');
const AWS_KEY_ID = ['AKIA', 'IOSFODNN7EXAMPLE'].join('');
const CONTEXT =
  "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.";

/** An openai error exactly as the client builds it from an HTTP error response body `{ error }`. */
const oa = (status: number, message: string, fields: object = {}, headers: Record<string, string> = {}) =>
  OpenAI.APIError.generate(status, { error: { message, ...fields } }, undefined, new Headers(headers));
/** A stream `error` event: openai raises it as an APIError without status or headers. */
const oaEvent = (error: object) => new OpenAI.APIError(undefined, error, undefined, undefined);
/** An Anthropic error exactly as its SDK builds it from an error response `{type: "error", error}`. */
const an = (status: number, type: string, message: string, headers: Record<string, string> = {}) =>
  Anthropic.APIError.generate(
    status,
    { type: 'error', error: { type, message } },
    undefined,
    new Headers(headers),
  );
/** An Anthropic stream `error` event: its SDK raises an APIError without status, typed by the event. */
const anEvent = (type: Anthropic.ErrorType, message: string) =>
  new Anthropic.APIError(
    undefined,
    { type: 'error', error: { type, message } },
    undefined,
    new Headers(),
    type,
  );
const ANTHROPIC_CONTEXT = 'prompt is too long: 210000 tokens > 200000 maximum';
const meta = (httpStatusCode?: number) => ({ httpStatusCode, requestId: 'f3a1c9e2', attempts: 1 });
type BedrockException = new (options: { message: string; $metadata: ReturnType<typeof meta> }) => Error;
/** A modelled Bedrock Runtime exception, as the AWS SDK deserialises it. */
const br = (Exception: BedrockException, status: number | undefined, message: string) =>
  new Exception({ message, $metadata: meta(status) });
const sys = (code: string, message: string) => Object.assign(new Error(message), { code, errno: -1 });
const named = (name: string, message: string, fields: object = {}) =>
  Object.assign(new Error(message), { name, ...fields });
const fetchFailed = (cause: Error) => new TypeError('fetch failed', { cause });
const connError = (cause: Error) => new OpenAI.APIConnectionError({ cause: fetchFailed(cause) });
/** What @smithy/node-http-handler throws when the AbortSignal fires: the signal's reason is the cause. */
const smithyAbort = (reason: Error) => named('AbortError', 'Request aborted', { cause: reason });
const dom = (name: string) => new DOMException(`The operation failed: ${name}`, name);
const jsonError = await Promise.resolve('{"id": "chatcmpl-1", ')
  .then(JSON.parse)
  .catch((e: unknown) => e);
const nodeAbort = await sleep(1, undefined, { signal: AbortSignal.abort() }).catch((e: unknown) => e);
const BEDROCK = { provider: 'bedrock', model: 'haiku' };
/** What an ordinary caller sent: the matrix's upstream messages are the providers' own words. */
const CALLER = { callerInput: { messages: [{ role: 'user', content: 'Summarise this thread.' }] } };
const wrapped = (failureClass: FailureClass, cause?: unknown) =>
  new ProviderError({ ...BEDROCK, failureClass, message: 'refused', cause });

const AZURE_FILTER =
  "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.";
const connectTimeout = named('ConnectTimeoutError', 'Connect Timeout Error', {
  code: 'UND_ERR_CONNECT_TIMEOUT',
});
const headersTimeout = named('HeadersTimeoutError', 'Headers Timeout Error', {
  code: 'UND_ERR_HEADERS_TIMEOUT',
});
const socketClosed = named('SocketError', 'other side closed', { code: 'UND_ERR_SOCKET' });
const invalid = (message: string) => br(bedrock.ValidationException, 400, message);

/** The failure matrix of docs/design.md#the-failure-matrix, one realistic error per row, grouped by the class it must get. */
const MATRIX: Readonly<Record<FailureClass, Readonly<Record<string, unknown>>>> = {
  rate_limited: {
    'an Anthropic rate_limit_error 429': an(
      429,
      'rate_limit_error',
      'Number of request tokens has exceeded your per-minute rate limit',
    ),
    'an Anthropic stream rate_limit_error event': anEvent('rate_limit_error', 'Rate limited'),
    'an OpenAI RateLimitError': oa(429, 'Rate limit reached', { code: 'rate_limit_exceeded' }),
    'a Bedrock ThrottlingException': br(bedrock.ThrottlingException, 429, 'Too many requests'),
    'a Bedrock ServiceQuotaExceededException (HTTP 400)': br(
      bedrock.ServiceQuotaExceededException,
      400,
      'Quota',
    ),
  },
  unavailable: {
    'an Anthropic overloaded_error 529': an(529, 'overloaded_error', 'Overloaded'),
    'an Anthropic api_error 500': an(500, 'api_error', 'Internal server error'),
    'an Anthropic stream overloaded_error event': anEvent('overloaded_error', 'Overloaded'),
    'an OpenAI InternalServerError': oa(500, 'The server had an error'),
    'an OpenAI 502': oa(502, 'Bad gateway'),
    'an OpenAI 503': oa(503, 'Service Unavailable'),
    'an OpenAI 504': oa(504, 'Gateway timeout'),
    'a 529 overloaded APIError': new OpenAI.APIError(529, { type: 'overloaded' }, undefined, new Headers()),
    'a stream error event of type server_error': oaEvent({ message: 'Server error', type: 'server_error' }),
    'a Bedrock ServiceUnavailableException': br(bedrock.ServiceUnavailableException, 503, 'Unavailable'),
    'a Bedrock InternalServerException': br(bedrock.InternalServerException, 500, 'Internal error'),
    'a Bedrock ModelNotReadyException (HTTP 429)': br(bedrock.ModelNotReadyException, 429, 'Not ready'),
    'a Bedrock ModelErrorException (HTTP 424)': br(bedrock.ModelErrorException, 424, 'Model failed'),
    'a Bedrock ModelStreamErrorException': br(bedrock.ModelStreamErrorException, undefined, 'Stream failed'),
    'an unrecognised Error': new Error('something odd happened'),
    'a thrown string': 'boom',
    undefined: undefined,
  },
  timeout: {
    'an Anthropic APIConnectionTimeoutError': new Anthropic.APIConnectionTimeoutError(),
    'an OpenAI 408': oa(408, 'Request timeout'),
    'an APIConnectionTimeoutError': new OpenAI.APIConnectionTimeoutError(),
    'an APIConnectionError caused by a connect timeout': connError(connectTimeout),
    'a Bedrock ModelTimeoutException': br(bedrock.ModelTimeoutException, 408, 'Model has timed out'),
    'a Node ETIMEDOUT': sys('ETIMEDOUT', 'connect ETIMEDOUT 10.0.0.1:443'),
    'an undici headers timeout': fetchFailed(headersTimeout),
    'a Smithy socket timeout': named('TimeoutError', 'the request socket timed out after 1000 ms'),
    'a Smithy abort caused by a timeout signal': smithyAbort(dom('TimeoutError')),
    'a DOMException TimeoutError': dom('TimeoutError'),
    'an Error wrapping a ProviderError of class timeout': new Error('failed', { cause: wrapped('timeout') }),
  },
  network: {
    'an Anthropic APIConnectionError caused by ECONNREFUSED': new Anthropic.APIConnectionError({
      cause: fetchFailed(sys('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:443')),
    }),
    'an APIConnectionError caused by ECONNRESET': connError(sys('ECONNRESET', 'read ECONNRESET')),
    'a Node ECONNREFUSED': sys('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:443'),
    'a Node ECONNRESET': sys('ECONNRESET', 'read ECONNRESET'),
    'a Node ENOTFOUND': sys('ENOTFOUND', 'getaddrinfo ENOTFOUND api.openai.com'),
    'a Node EAI_AGAIN': sys('EAI_AGAIN', 'getaddrinfo EAI_AGAIN api.openai.com'),
    'a Node EPIPE': sys('EPIPE', 'write EPIPE'),
    'an undici socket error': new TypeError('terminated', { cause: socketClosed }),
    'a fetch failure caused by ECONNREFUSED': fetchFailed(sys('ECONNREFUSED', 'connect ECONNREFUSED')),
    'a Smithy ECONNRESET renamed TimeoutError': named('TimeoutError', 'socket hang up', {
      code: 'ECONNRESET',
    }),
    'a happy-eyeballs AggregateError': new AggregateError([
      sys('ECONNREFUSED', '::1'),
      sys('ECONNREFUSED', '::2'),
    ]),
  },
  upstream_auth: {
    'an Anthropic authentication_error 401': an(401, 'authentication_error', 'invalid x-api-key'),
    'an Anthropic permission_error 403': an(403, 'permission_error', 'Not allowed'),
    'an Anthropic billing_error 402': an(402, 'billing_error', 'Your credit balance is too low'),
    'an Anthropic stream authentication_error event': anEvent('authentication_error', 'invalid x-api-key'),
    'an OpenAI AuthenticationError': oa(401, 'Incorrect API key provided: sk-abc***123.'),
    'an OpenAI PermissionDeniedError': oa(403, 'Country, region, or territory not supported'),
    'an OpenAI 429 insufficient_quota': oa(429, 'Quota exceeded', { code: 'insufficient_quota' }),
    'a 402 out-of-credits error': oa(402, 'Insufficient credits'),
    'a Bedrock AccessDeniedException': br(bedrock.AccessDeniedException, 403, 'No access'),
  },
  model_not_found: {
    'an Anthropic not_found_error 404': an(404, 'not_found_error', 'model: claude-9'),
    'an OpenAI NotFoundError': oa(404, 'The model `gpt-9` does not exist', { code: 'model_not_found' }),
    'a Bedrock ResourceNotFoundException': br(bedrock.ResourceNotFoundException, 404, 'Not found'),
    'a Bedrock invalid-model-id ValidationException': invalid('The provided model identifier is invalid.'),
  },
  malformed_response: {
    'a JSON SyntaxError': jsonError,
  },
  invalid_request: {
    'an Anthropic ordinary invalid_request_error': an(
      400,
      'invalid_request_error',
      'messages: roles must alternate',
    ),
    'an Anthropic request_too_large 413': an(
      413,
      'request_too_large',
      'Request exceeds the maximum allowed number of bytes.',
    ),
    'an OpenAI ordinary BadRequestError': oa(400, "Invalid value for 'temperature'"),
    'an OpenAI UnprocessableEntityError': oa(422, 'Unprocessable request'),
    'an OpenAI ConflictError': oa(409, 'Conflict'),
    'a Bedrock ordinary ValidationException': invalid('A conversation must start with a user message.'),
  },
  context_length: {
    'an Anthropic prompt-too-long invalid_request_error': an(400, 'invalid_request_error', ANTHROPIC_CONTEXT),
    'an Anthropic context-limit invalid_request_error': an(
      400,
      'invalid_request_error',
      'input length and `max_tokens` exceed context limit: 197000 + 21333 > 200000, decrease input length or `max_tokens` and try again',
    ),
    'an OpenAI context_length_exceeded': oa(400, CONTEXT, { code: 'context_length_exceeded' }),
    'a 413 with a context message': oa(413, 'prompt is too long: 210000 tokens > 200000 maximum'),
    'a stream error event of context_length_exceeded': oaEvent({ code: 'context_length_exceeded' }),
    'a Bedrock "Input is too long" ValidationException': invalid('Input is too long for requested model.'),
    'a Bedrock "too many input tokens" ValidationException': invalid('too many input tokens. Max: 8192'),
    'a Bedrock max-tokens ValidationException': invalid(
      'The maximum tokens you requested exceeds the model limit',
    ),
  },
  content_policy: {
    'an Azure content-filter 400': oa(400, AZURE_FILTER, { code: 'content_filter' }),
    'an OpenAI content_policy_violation': oa(400, 'Rejected', { code: 'content_policy_violation' }),
    'an OpenAI usage-policy refusal': oa(400, 'Your prompt was flagged as violating our usage policy.'),
    'an OpenAI ContentFilterFinishReasonError': new ContentFilterFinishReasonError(),
    'a Bedrock content-filter ValidationException': invalid('Output blocked by content filtering policy'),
    'a Bedrock guardrail ValidationException': invalid('The request was blocked by guardrail gr-1.'),
    'a ProviderError carrying content_policy over a 500': wrapped('content_policy', oa(500, 'x')),
  },
  cancelled: {
    'an Anthropic APIUserAbortError': new Anthropic.APIUserAbortError(),
    'an APIUserAbortError': new OpenAI.APIUserAbortError(),
    'a Smithy abort caused by the caller': smithyAbort(dom('AbortError')),
    'a DOMException AbortError': dom('AbortError'),
    'a Node AbortError (ABORT_ERR)': nodeAbort,
  },
  schema_invalid: {
    'the SchemaInvalidError a structured-output check throws': new SchemaInvalidError({
      provider: 'openai',
      model: 'gpt-mini',
      errors: ['the answer is not valid JSON'],
      repairSameModel: false,
    }),
  },
  not_configured: {
    'missing AWS credentials': named('CredentialsProviderError', 'Could not load credentials'),
    'the missing-key ProviderError a keyless model throws': new ProviderError({
      provider: 'openai',
      model: 'gpt-mini',
      failureClass: 'not_configured',
      message: "no API key for provider 'openai' (set OPENAI_API_KEY)",
    }),
    'an Error wrapping a missing-key ProviderError': new Error('failed', {
      cause: wrapped('not_configured'),
    }),
  },
};
const ROWS = Object.entries(MATRIX).flatMap(([expected, errors]) =>
  Object.entries(errors).map(([label, error]): [string, string, unknown] => [label, expected, error]),
);

describe('classifyError', () => {
  it('builds the SDK errors it is tested with', () => {
    expect(oa(429, 'x')).toBeInstanceOf(OpenAI.RateLimitError);
    expect(oa(400, 'x')).toBeInstanceOf(OpenAI.BadRequestError);
    expect(jsonError).toBeInstanceOf(SyntaxError);
    expect(nodeAbort).toMatchObject({ name: 'AbortError', code: 'ABORT_ERR' });
    expect(an(529, 'overloaded_error', 'x')).toBeInstanceOf(Anthropic.APIError);
    expect(an(429, 'rate_limit_error', 'x')).toBeInstanceOf(Anthropic.RateLimitError);
  });

  it.each(ROWS)('classifies %s as %s', (_label, expected, error) => {
    expect(classifyError(error, NOW, CALLER).failureClass).toBe(expected);
  });

  it('reaches every FailureClass from at least one realistic error', () => {
    const reached = new Set(ROWS.map(([, , error]) => classifyError(error, NOW, CALLER).failureClass));
    expect([...reached].sort()).toEqual([...FAILURE_CLASSES].sort());
  });

  it.each<[string, unknown, Classification]>([
    [
      'a rate limit: status, Retry-After and a generic message',
      oa(429, 'Rate limit reached for gpt-4o in org-abc', {}, { 'retry-after': '2' }),
      {
        failureClass: 'rate_limited',
        status: 429,
        retryAfterMs: 2000,
        message: 'upstream rate limited (429)',
      },
    ],
    [
      'a context-length error: the upstream message, without the status prefix',
      oa(400, CONTEXT, { code: 'context_length_exceeded' }),
      { failureClass: 'context_length', status: 400, message: CONTEXT },
    ],
    [
      'an Anthropic 429: status, Retry-After and a generic message',
      an(429, 'rate_limit_error', 'Number of requests has exceeded your rate limit', { 'retry-after': '3' }),
      {
        failureClass: 'rate_limited',
        status: 429,
        retryAfterMs: 3000,
        message: 'upstream rate limited (429)',
      },
    ],
    [
      "an Anthropic context-length error: the upstream's words out of the envelope",
      an(400, 'invalid_request_error', ANTHROPIC_CONTEXT),
      { failureClass: 'context_length', status: 400, message: ANTHROPIC_CONTEXT },
    ],
    [
      'an Anthropic 529: overloaded, a generic message',
      an(529, 'overloaded_error', 'Overloaded'),
      { failureClass: 'unavailable', status: 529, message: 'upstream unavailable (529)' },
    ],
    [
      'a network error: the Node code in the message',
      connError(sys('ECONNRESET', 'read ECONNRESET')),
      { failureClass: 'network', message: 'upstream network error (ECONNRESET)' },
    ],
    [
      'a ProviderError: its own status, hint and message',
      new ProviderError({
        ...BEDROCK,
        status: 429,
        failureClass: 'rate_limited',
        retryAfterMs: 750,
        message: 'throttled',
      }),
      { failureClass: 'rate_limited', status: 429, retryAfterMs: 750, message: 'throttled' },
    ],
  ])('describes %s', (_label, error, expected) => {
    expect(classifyError(error, NOW)).toEqual(expected);
  });

  it(`caps messages at ${MAX_MESSAGE_LENGTH} characters`, () => {
    expect(classifyError(oa(400, 'x '.repeat(2000)), NOW).message.length).toBeLessThanOrEqual(
      MAX_MESSAGE_LENGTH,
    );
  });

  it.each<[string, unknown, string]>([
    ['an OpenAI 401 echoing the key', oa(401, `Incorrect API key provided: ${OPENAI_KEY}.`), OPENAI_KEY],
    [
      'a 400 echoing a query-string key',
      oa(400, `Invalid URL (GET /v1/models?api_key=${OPENAI_KEY})`),
      OPENAI_KEY,
    ],
    [
      'a Bedrock ValidationException echoing an access key id',
      br(bedrock.ValidationException, 400, `Credential ${AWS_KEY_ID}/20250301/us-east-1 is malformed`),
      AWS_KEY_ID,
    ],
    [
      'a ProviderError whose message holds a bearer token',
      new ProviderError({ ...BEDROCK, failureClass: 'invalid_request', message: `Bearer ${OPENAI_KEY}` }),
      OPENAI_KEY,
    ],
  ])('never repeats the key in %s', (_label, error, key) => {
    expect(classifyError(error, NOW).message).not.toContain(key);
  });
});

describe('classifyError through the real SDK clients', () => {
  const request = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'hi' }] };
  const chat = (fetch: typeof globalThis.fetch, options: { timeout?: number; signal?: AbortSignal } = {}) =>
    new OpenAI({
      apiKey: OPENAI_KEY,
      baseURL: 'http://upstream.test/v1',
      maxRetries: 0,
      fetch,
      timeout: options.timeout,
    }).chat.completions
      .create(request, { signal: options.signal })
      .then(
        () => expect.unreachable('the call succeeded'),
        (error: unknown) => error,
      );
  const hang: typeof globalThis.fetch = (_url, init) =>
    new Promise((_resolve, reject) =>
      init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
    );
  const reply =
    (status: number, body: unknown, headers: Record<string, string> = {}): typeof globalThis.fetch =>
    async () =>
      new Response(typeof body === 'string' ? body : JSON.stringify(body), {
        status,
        headers: { 'content-type': 'application/json', ...headers },
      });

  it.each<[string, typeof globalThis.fetch, number | undefined, Partial<Classification>]>([
    [
      'a 429 with Retry-After',
      reply(429, { error: { message: 'Rate limit reached' } }, { 'retry-after': '2' }),
      undefined,
      { failureClass: 'rate_limited', status: 429, retryAfterMs: 2000 },
    ],
    [
      'a 401 echoing the key',
      reply(401, {
        error: { message: `Incorrect API key provided: ${OPENAI_KEY}.`, code: 'invalid_api_key' },
      }),
      undefined,
      { failureClass: 'upstream_auth', status: 401, message: 'upstream rejected our credentials (401)' },
    ],
    [
      'a reset connection',
      () => Promise.reject(fetchFailed(sys('ECONNRESET', 'read'))),
      undefined,
      { failureClass: 'network' },
    ],
    ['its own timeout', hang, 5, { failureClass: 'timeout' }],
    [
      'a truncated 200 body',
      reply(200, '{"id": "chatcmpl-1", '),
      undefined,
      { failureClass: 'malformed_response' },
    ],
  ])('classifies an OpenAI call failing with %s', async (_label, fetch, timeout, expected) => {
    expect(classifyError(await chat(fetch, { timeout }), NOW)).toMatchObject(expected);
  });

  it('classifies an OpenAI call the caller aborted as cancelled', async () => {
    const controller = new AbortController();
    const pending = chat(hang, { signal: controller.signal });
    controller.abort();
    expect(classifyError(await pending, NOW).failureClass).toBe('cancelled');
  });

  /** A Bedrock transport answering every call with one scripted error response. */
  class ScriptedBedrock extends NodeHttpHandler {
    constructor(
      private readonly status: number,
      private readonly type: string,
      private readonly message: string,
      private readonly extraHeaders: Record<string, string> = {},
    ) {
      super();
    }
    override async handle(): ReturnType<NodeHttpHandler['handle']> {
      const headers = {
        'content-type': 'application/json',
        'x-amzn-requestid': 'f3a1c9e2',
        'x-amzn-errortype': `${this.type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
        ...this.extraHeaders,
      };
      const body = Readable.from([Buffer.from(JSON.stringify({ message: this.message }))]);
      return { response: { statusCode: this.status, headers, body } };
    }
  }
  const converse = (requestHandler: ScriptedBedrock) =>
    new bedrock.BedrockRuntimeClient({
      region: 'us-east-1',
      maxAttempts: 1,
      credentials: { accessKeyId: AWS_KEY_ID, secretAccessKey: 'test' },
      requestHandler,
    })
      .send(
        new bedrock.ConverseCommand({
          modelId: 'm',
          messages: [{ role: 'user', content: [{ text: 'hi' }] }],
        }),
      )
      .then(
        () => expect.unreachable('the call succeeded'),
        (error: unknown) => error,
      );

  it.each<[string, ScriptedBedrock, Partial<Classification>]>([
    [
      'a ThrottlingException with Retry-After',
      new ScriptedBedrock(429, 'ThrottlingException', 'Too many requests', { 'retry-after': '3' }),
      { failureClass: 'rate_limited', status: 429, retryAfterMs: 3000 },
    ],
    [
      'an "Input is too long" ValidationException',
      new ScriptedBedrock(400, 'ValidationException', 'Input is too long for requested model.'),
      { failureClass: 'context_length', status: 400, message: 'Input is too long for requested model.' },
    ],
    [
      'a ServiceQuotaExceededException',
      new ScriptedBedrock(400, 'ServiceQuotaExceededException', 'Your request exceeds the service quota.'),
      { failureClass: 'rate_limited', status: 400 },
    ],
    [
      'a ModelNotReadyException',
      new ScriptedBedrock(429, 'ModelNotReadyException', 'Model is not ready.'),
      { failureClass: 'unavailable', status: 429 },
    ],
  ])('classifies a Bedrock Converse call failing with %s', async (_label, handler, expected) => {
    expect(classifyError(await converse(handler), NOW)).toMatchObject(expected);
  });
});
