/**
 * The output a caller asks for is the caller's, not the route's (docs/configuration.md#timeouts):
 * a plain answer's total limit grows by the time the caller's `max_tokens` takes at the route's
 * expected rate, and a total-phase timeout that this time explains is not the route's failure.
 */

/**
 * The expected output rate of a route that sets none (`timeouts.outputTokensPerSec`), in tokens
 * per second: the slowest rate at which a route still counts as healthy. Default 20.
 */
export const DEFAULT_OUTPUT_TOKENS_PER_SEC = 20;

/**
 * The time, in ms, that `maxTokens` output tokens take at `tokensPerSec`, rounded up; 0 when the
 * caller set no `max_tokens` (nothing the caller asked for explains a slow answer then).
 */
export function outputAllowanceMs(maxTokens: number | undefined, tokensPerSec: number): number {
  if (maxTokens === undefined) return 0;
  return Math.ceil((maxTokens * 1000) / tokensPerSec);
}

/**
 * The total limit of a plain attempt, in ms from its start: the route's `totalMs`, or, when the
 * output the caller asked for needs longer, the first-byte limit plus that output's time.
 */
export function totalWithOutput(
  limits: { firstByteMs: number; totalMs: number },
  allowanceMs: number,
): number {
  return Math.max(limits.totalMs, limits.firstByteMs + allowanceMs);
}

/** What is known when an attempt's total limit runs out, each in ms from the attempt's start but the allowance. */
export interface TotalTimeoutFacts {
  /** The total limit that ran out, as applied (the request's deadline may have cut it). */
  totalMs: number;
  /** When the first byte came: the route was up and answering from then on. */
  firstByteAtMs: number;
  /** {@link outputAllowanceMs} of the request on this route. */
  allowanceMs: number;
}

/**
 * True when the caller's own `max_tokens` explains a total-phase timeout: the route answered its
 * first byte in time, and was then stopped before the output the caller asked for could have
 * been written at the route's expected rate (the request's deadline came first). Such a timeout
 * is not counted against the route. A route slower than its expected rate still counts (it had
 * the whole allowance), and so does one that never sends its first byte (a first-byte timeout).
 */
export function explainedByOutput({ totalMs, firstByteAtMs, allowanceMs }: TotalTimeoutFacts): boolean {
  return totalMs < firstByteAtMs + allowanceMs;
}
