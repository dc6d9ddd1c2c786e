/**
 * Every way an attempt can fail, in the vocabulary of SPEC §6. The class decides whether the
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
  'invalid_request',
  'context_length',
  'content_policy',
  'cancelled',
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
}

/** The failure matrix of SPEC §6 as data (what the caller finally sees is `terminalError`'s decision). */
export const FAILURE_POLICY: Readonly<Record<FailureClass, FailurePolicy>> = {
  rate_limited: { fallback: true, countsInBreaker: true, opensAtOnce: false },
  unavailable: { fallback: true, countsInBreaker: true, opensAtOnce: false },
  timeout: { fallback: true, countsInBreaker: true, opensAtOnce: false },
  network: { fallback: true, countsInBreaker: true, opensAtOnce: false },
  upstream_auth: { fallback: true, countsInBreaker: true, opensAtOnce: true },
  model_not_found: { fallback: true, countsInBreaker: true, opensAtOnce: true },
  malformed_response: { fallback: true, countsInBreaker: true, opensAtOnce: false },
  invalid_request: { fallback: false, countsInBreaker: false, opensAtOnce: false },
  context_length: { fallback: false, countsInBreaker: false, opensAtOnce: false },
  content_policy: { fallback: false, countsInBreaker: false, opensAtOnce: false },
  cancelled: { fallback: false, countsInBreaker: false, opensAtOnce: false },
};
