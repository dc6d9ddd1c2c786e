/**
 * The evidence tables of the failure matrix that belong to no provider family: message patterns,
 * Node transport codes and names, each mapped to a failure class, and the {@link FailureSignals}
 * shape in which each family brings its own rows. Data only; `classify-error.ts` applies them.
 */
import type { FailureClass } from './failure-class.js';

/** Marks the exception names and codes whose class depends on the message, like a plain 400. */
export const REQUEST = 'request';
export type Verdict = FailureClass | typeof REQUEST;

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
/** Transport error names every Node client may raise: DOM and undici's, parse failures. */
const TRANSPORT_NAMES: ReadonlyMap<string, FailureClass> = new Map<string, FailureClass>([
  ['TimeoutError', 'timeout'],
  ['ConnectTimeoutError', 'timeout'],
  ['HeadersTimeoutError', 'timeout'],
  ['BodyTimeoutError', 'timeout'],
  ['AbortError', 'cancelled'],
  ['RequestAbortedError', 'cancelled'],
  ['SocketError', 'network'],
  ['SyntaxError', 'malformed_response'],
  ['ZodError', 'malformed_response'],
]);

/**
 * One provider family's evidence (its rows of the failure matrix), or the generic rows every
 * classification uses. The families keep theirs in `lambda/families/<family>/`; the caller of
 * `classifyError` passes the table that fits the error's origin.
 */
export interface FailureSignals {
  /**
   * Exception and class names. They win over the status, because some upstreams' statuses
   * mislead (a quota reported as a 400, capacity as a 429). {@link REQUEST} marks the names whose
   * class depends on the message, like a plain 400.
   */
  readonly named: ReadonlyMap<string, Verdict>;
  /**
   * Error codes and types (an error body's `code` / `type`) that decide the class when no status
   * does (stream error events); the stop and quarantine ones also refine a 4xx.
   */
  readonly codes: ReadonlyMap<string, Verdict>;
  /** Codes that make a 429 a billing problem (`upstream_auth`), not a transient rate limit. */
  readonly quotaCodes: ReadonlySet<string>;
  /**
   * Whole upstream sentences that mean the route is misconfigured (model id wrong or retired)
   * when a 400 carries no code of its own. Anchored at the start of the upstream message: the
   * upstream writes these first, while echoed request text comes after a prefix of its own. The
   * match is still refused when the caller could have written it (`couldBeCallerText`).
   */
  readonly modelMissing: readonly RegExp[];
  /** Transport error names (a client library's connection and timeout classes). */
  readonly transportNames: ReadonlyMap<string, FailureClass>;
  /** Default messages of transport errors that set no `name`: they classify even when a bundler renamed the classes. */
  readonly transportMessages: ReadonlyMap<string, FailureClass>;
}

/** The rows no family owns: Node and undici transport signals. Every table built by {@link withSignals} holds them. */
export const GENERIC_SIGNALS: FailureSignals = {
  named: new Map(),
  codes: new Map(),
  quotaCodes: new Set(),
  modelMissing: [],
  transportNames: TRANSPORT_NAMES,
  transportMessages: new Map<string, FailureClass>([['fetch failed', 'network']]),
};

/**
 * The generic rows plus each table's, in order (a later table's row for the same key wins).
 * Families build their table with it; a family that reuses another's adapter passes both.
 */
export function withSignals(...tables: readonly Partial<FailureSignals>[]): FailureSignals {
  const all = [GENERIC_SIGNALS, ...tables];
  const maps = <V>(pick: (table: Partial<FailureSignals>) => ReadonlyMap<string, V> | undefined) =>
    new Map(all.flatMap((table) => [...(pick(table) ?? [])]));
  return {
    named: maps((table) => table.named),
    codes: maps((table) => table.codes),
    quotaCodes: new Set(all.flatMap((table) => [...(table.quotaCodes ?? [])])),
    modelMissing: all.flatMap((table) => table.modelMissing ?? []),
    transportNames: maps((table) => table.transportNames),
    transportMessages: maps((table) => table.transportMessages),
  };
}

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
