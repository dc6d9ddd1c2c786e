/**
 * The evidence tables of the failure matrix: exception names, error codes, message patterns and
 * transport signals, each mapped to a failure class. Data only; `classify-error.ts` applies them.
 */
import type { FailureClass } from './failure-class.js';

/** Marks the AWS exceptions whose class depends on the message, like a plain 400. */
export const REQUEST = 'request';
export type Verdict = FailureClass | typeof REQUEST;

/**
 * AWS SDK exception names and the few decisive `openai` class names. Names win over the status
 * because Bedrock's statuses mislead: ServiceQuotaExceededException is a 400 (a quota, not a bad
 * request), ModelNotReadyException a 429 (capacity, not our rate), ModelErrorException a 424.
 */
export const NAMED: ReadonlyMap<string, Verdict> = new Map<string, Verdict>([
  ['ThrottlingException', 'rate_limited'],
  ['TooManyRequestsException', 'rate_limited'],
  ['ServiceQuotaExceededException', 'rate_limited'],
  ['ModelNotReadyException', 'unavailable'],
  ['ServiceUnavailableException', 'unavailable'],
  ['InternalServerException', 'unavailable'],
  ['InternalFailure', 'unavailable'],
  ['ModelErrorException', 'unavailable'],
  ['ModelStreamErrorException', 'unavailable'],
  ['ModelTimeoutException', 'timeout'],
  ['AccessDeniedException', 'upstream_auth'],
  ['UnrecognizedClientException', 'upstream_auth'],
  ['ExpiredTokenException', 'upstream_auth'],
  ['InvalidSignatureException', 'upstream_auth'],
  ['CredentialsProviderError', 'upstream_auth'],
  ['ResourceNotFoundException', 'model_not_found'],
  ['ValidationException', REQUEST],
  ['ConflictException', REQUEST],
  ['ContentFilterFinishReasonError', 'content_policy'],
  ['LengthFinishReasonError', 'malformed_response'],
]);

/**
 * Error codes (OpenAI `code` / `type`, Anthropic `error.type`) that decide the class when no
 * status does (stream error events); the stop and quarantine ones also refine a 4xx.
 */
export const CODES: ReadonlyMap<string, Verdict> = new Map<string, Verdict>([
  ['context_length_exceeded', 'context_length'],
  ['content_filter', 'content_policy'],
  ['content_policy_violation', 'content_policy'],
  ['model_not_found', 'model_not_found'],
  // Billing, not a transient limit: it will not clear in a breaker window and needs a human.
  ['insufficient_quota', 'upstream_auth'],
  ['invalid_api_key', 'upstream_auth'],
  ['rate_limit_exceeded', 'rate_limited'],
  ['server_error', 'unavailable'],
  ['overloaded_error', 'unavailable'],
  ['invalid_request_error', REQUEST],
  // Anthropic's error types (the envelope's `error.type`).
  ['rate_limit_error', 'rate_limited'],
  ['api_error', 'unavailable'],
  ['authentication_error', 'upstream_auth'],
  ['permission_error', 'upstream_auth'],
  ['billing_error', 'upstream_auth'],
  ['not_found_error', 'model_not_found'],
  ['request_too_large', REQUEST],
]);

export const CONTENT_POLICY = [
  /content[ _-]?(?:filter|policy|management polic)/i,
  /usage polic(?:y|ies)|responsible ai/i,
  /\bguardrail\b.{0,80}\b(?:block|interven|violat)|\bblocked by\b.{0,40}\bguardrail/i,
  /\b(?:safety|moderation)\b.{0,60}\b(?:block|flag|violat|trigger|reject|refus)/i,
  /\b(?:block|flag|violat|reject|refus)\w*\b.{0,60}\b(?:safety|moderation)\b/i,
];
export const CONTEXT_LENGTH = [
  /context[ _-]?(?:length|window|limit)/i,
  /\b(?:input|prompt) is too long\b|too many (?:input |prompt )?tokens/i,
  /\btokens?\b.{0,80}\bexceeds?\b.{0,60}\b(?:limit|maximum|max)\b|\binput length\b.{0,40}\bexceeds?\b/i,
  /reduce the length of (?:the|your) (?:messages|prompt|input)|max_tokens is too large/i,
];
/**
 * Whole provider sentences that mean the route is misconfigured (model id wrong or retired) when
 * a 400 carries no code of its own. Anchored at the start of the upstream message: the provider
 * writes these first, while echoed request text comes after a prefix of the provider's. The match
 * is still refused when the caller could have written it (`couldBeCallerText`).
 */
export const MODEL_MISSING = [
  /^(?:the )?provided model identifier is invalid\b/i,
  /^invocation of model id \S{1,200} with on-demand throughput isn.t supported\b/i,
  /^this model version has reached the end of its life\b/i,
  /^(?:the )?model [`'"]?[\w.:/@-]{1,200}[`'"]? (?:does not exist|is not found|not found)\b/i,
  /^[`'"]?[\w.:/@-]{1,200}[`'"]? is not a valid model id\b/i,
];
/**
 * Error codes / types that say only "bad request": they leave room for the message to refine the
 * class. Any other code is specific and the message never overrides it.
 */
export const GENERIC_REQUEST_CODES = new Set(['invalid_request_error', 'invalid_request', 'bad_request']);

export const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ERR_SOCKET_CONNECTION_TIMEOUT',
]);
export const CANCEL_CODES = new Set(['ABORT_ERR', 'UND_ERR_ABORTED']);
export const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ERR_STREAM_PREMATURE_CLOSE',
]);
export const TRANSPORT_NAMES: ReadonlyMap<string, FailureClass> = new Map<string, FailureClass>([
  ['TimeoutError', 'timeout'],
  ['APIConnectionTimeoutError', 'timeout'],
  ['ConnectTimeoutError', 'timeout'],
  ['HeadersTimeoutError', 'timeout'],
  ['BodyTimeoutError', 'timeout'],
  ['AbortError', 'cancelled'],
  ['APIUserAbortError', 'cancelled'],
  ['RequestAbortedError', 'cancelled'],
  ['APIConnectionError', 'network'],
  ['SocketError', 'network'],
  ['SyntaxError', 'malformed_response'],
  ['ZodError', 'malformed_response'],
]);
/**
 * Default messages of openai's connection errors, which do not set `name`: they still classify
 * when a minifying bundler has renamed the classes.
 */
export const TRANSPORT_MESSAGES: ReadonlyMap<string, FailureClass> = new Map<string, FailureClass>([
  ['Request timed out.', 'timeout'],
  ['Request was aborted.', 'cancelled'],
  ['Connection error.', 'network'],
  ['fetch failed', 'network'],
]);

export const GENERIC: Readonly<Record<FailureClass, string>> = {
  rate_limited: 'upstream rate limited',
  unavailable: 'upstream unavailable',
  timeout: 'upstream timed out',
  network: 'upstream network error',
  upstream_auth: 'upstream rejected our credentials',
  model_not_found: 'upstream model not found',
  malformed_response: 'malformed upstream response',
  schema_invalid: 'the answer does not match the requested JSON schema',
  invalid_request: 'upstream rejected the request',
  context_length: 'context window exceeded',
  content_policy: 'refused by upstream content policy',
  cancelled: 'request cancelled',
  not_configured: 'provider key not configured',
};
/** Classes whose upstream message is the caller's business and is passed through. */
export const PASS_THROUGH = new Set<FailureClass>(['invalid_request', 'context_length', 'content_policy']);
