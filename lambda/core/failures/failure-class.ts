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
  /** HTTP status the caller sees when this is the failure that ends the request. */
  readonly callerStatus: number;
}

/** The failure matrix of SPEC §6 as data. */
export const FAILURE_POLICY: Readonly<Record<FailureClass, FailurePolicy>> = {
  rate_limited: { fallback: true, countsInBreaker: true, opensAtOnce: false, callerStatus: 429 },
  unavailable: { fallback: true, countsInBreaker: true, opensAtOnce: false, callerStatus: 503 },
  timeout: { fallback: true, countsInBreaker: true, opensAtOnce: false, callerStatus: 504 },
  network: { fallback: true, countsInBreaker: true, opensAtOnce: false, callerStatus: 502 },
  upstream_auth: { fallback: true, countsInBreaker: true, opensAtOnce: true, callerStatus: 502 },
  model_not_found: { fallback: true, countsInBreaker: true, opensAtOnce: true, callerStatus: 502 },
  malformed_response: { fallback: true, countsInBreaker: true, opensAtOnce: false, callerStatus: 502 },
  invalid_request: { fallback: false, countsInBreaker: false, opensAtOnce: false, callerStatus: 400 },
  context_length: { fallback: false, countsInBreaker: false, opensAtOnce: false, callerStatus: 400 },
  content_policy: { fallback: false, countsInBreaker: false, opensAtOnce: false, callerStatus: 400 },
  cancelled: { fallback: false, countsInBreaker: false, opensAtOnce: false, callerStatus: 499 },
};
