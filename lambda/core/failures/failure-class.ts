/**
 * Every way an attempt can fail, in the vocabulary of docs/design.md#the-failure-matrix. The class decides whether the
 * loop falls back, whether the breaker counts it, and what the caller finally sees.
 */
export const FAILURE_CLASSES = [
  'rate_limited',
  'unavailable',
  'timeout',
  'network',
  'upstream_auth',
  'model_not_found',
  'malformed_response',
  'schema_invalid',
  'invalid_request',
  'context_length',
  'content_policy',
  'cancelled',
  'not_configured',
] as const;

export type FailureClass = (typeof FAILURE_CLASSES)[number];

/** What the attempt loop does with one failure class. */
export interface FailurePolicy {
  /** The loop may try another model after this failure. */
  readonly fallback: boolean;
  /** The failure counts as a failed sample in the breaker window. */
  readonly countsInBreaker: boolean;
  /** The breaker opens at once (our credential or a retired model): quarantine the route and alert. */
  readonly opensAtOnce: boolean;
  /**
   * The failure is this process's own configuration (a provider key that is missing or could not
   * be read), not the upstream's: no request left the process. The loop never writes it to the
   * shared breaker store, does not count it against `maxAttempts`, and does not pick the model
   * again within the same request.
   */
  readonly local: boolean;
}

/** The failure matrix of docs/design.md#the-failure-matrix as data (what the caller finally sees is `terminalError`'s decision). */
export const FAILURE_POLICY: Readonly<Record<FailureClass, FailurePolicy>> = {
  rate_limited: { fallback: true, countsInBreaker: true, opensAtOnce: false, local: false },
  unavailable: { fallback: true, countsInBreaker: true, opensAtOnce: false, local: false },
  timeout: { fallback: true, countsInBreaker: true, opensAtOnce: false, local: false },
  network: { fallback: true, countsInBreaker: true, opensAtOnce: false, local: false },
  upstream_auth: { fallback: true, countsInBreaker: true, opensAtOnce: true, local: false },
  model_not_found: { fallback: true, countsInBreaker: true, opensAtOnce: true, local: false },
  malformed_response: { fallback: true, countsInBreaker: true, opensAtOnce: false, local: false },
  // The upstream answered; the answer did not match the caller's JSON schema. The caller writes the
  // schema, so this evidence is the caller's to forge: it never moves a breaker that other callers share.
  schema_invalid: { fallback: true, countsInBreaker: false, opensAtOnce: false, local: false },
  invalid_request: { fallback: false, countsInBreaker: false, opensAtOnce: false, local: false },
  context_length: { fallback: false, countsInBreaker: false, opensAtOnce: false, local: false },
  content_policy: { fallback: false, countsInBreaker: false, opensAtOnce: false, local: false },
  cancelled: { fallback: false, countsInBreaker: false, opensAtOnce: false, local: false },
  not_configured: { fallback: true, countsInBreaker: false, opensAtOnce: false, local: true },
};

/**
 * True when a failed attempt is a sample of the route's health, to be written to the breaker
 * store: not this process's own configuration (`local`), and not a timeout that the caller's own
 * `max_tokens` explains (`callerSized`, docs/configuration.md#timeouts). What the sample then
 * counts for is its class's `countsInBreaker`.
 */
export function isRouteSample(error: {
  failureClass: FailureClass;
  callerSized?: boolean | undefined;
}): boolean {
  return !FAILURE_POLICY[error.failureClass].local && error.callerSized !== true;
}
