import type { RetrySettings } from '../catalog/retry-config-schema.js';
import type { FailureClass } from '../failures/failure-class.js';
import type { Random } from '../time.js';

/** What a retry decision reads of a failure: its class and the upstream's cooling hint. */
export interface RetryableFailure {
  failureClass: FailureClass;
  /** The upstream's `Retry-After`, in ms. */
  retryAfterMs?: number | undefined;
}

/** What the `contract` retry policy allows after one failure: the same route again, after `waitMs`. */
export interface SameRouteRetry {
  /** How long to wait before the retry, in ms (a jittered backoff or the upstream's `Retry-After`). */
  waitMs: number;
}

/**
 * Whether a failed attempt may be retried on the same route under the pipeline's retry policy
 * (docs/concepts.md#retry-policy), and after how long. Only `contract` ever says yes, once per
 * route and request (`retriedBefore`), and only while the deadline still holds the wait plus
 * `marginMs`:
 *
 * - a 5xx (`unavailable`) or a network error before headers: after a jittered backoff drawn evenly
 *   from [backoffMs / 2, backoffMs);
 * - a 429 with `Retry-After` of at most `maxRetryAfterMs`: after exactly that long (the route's
 *   cooling ends then).
 *
 * Anything else (a 429 without `Retry-After`, a timeout, a malformed answer, a quarantine) moves on
 * to another route of the model, then to substitution. `nowMs` and `deadlineMs` are epoch ms.
 */
export function sameRouteRetry(
  settings: RetrySettings | undefined,
  error: RetryableFailure,
  retriedBefore: boolean,
  timing: { nowMs: number; deadlineMs: number },
  random: Random,
): SameRouteRetry | undefined {
  if (settings?.policy !== 'contract' || retriedBefore) return undefined;
  const waitMs = waitFor(settings, error, random);
  if (waitMs === undefined) return undefined;
  return timing.nowMs + waitMs + settings.marginMs <= timing.deadlineMs ? { waitMs } : undefined;
}

function waitFor(
  settings: RetrySettings,
  { failureClass, retryAfterMs }: RetryableFailure,
  random: Random,
): number | undefined {
  if (failureClass === 'unavailable' || failureClass === 'network') {
    const half = settings.backoffMs / 2;
    return Math.floor(half + random() * half);
  }
  if (failureClass !== 'rate_limited' || retryAfterMs === undefined) return undefined;
  return retryAfterMs <= settings.maxRetryAfterMs ? retryAfterMs : undefined;
}
