import type { Clock, Random, Sleep } from '../core/time.js';

/** Time, randomness and sleeping for {@link retryWithinBudget}, injected so tests control them. */
export interface RetryTiming {
  clock: Clock;
  random: Random;
  sleep: Sleep;
}

/** Settings of {@link retryWithinBudget}; times in ms. */
export interface RetryWithinBudgetOptions extends RetryTiming {
  /** No try starts, and no pause ends, after this instant (ms since the epoch). */
  deadlineAt: number;
  /** Cap of the first pause, in ms; each later cap doubles. Default 100. */
  baseMs?: number | undefined;
  /** Largest cap of one pause, in ms. Default 1000. */
  maxMs?: number | undefined;
  /**
   * Tries at most, the first included. Default 4: a throttled quota that every new container
   * retries without limit only gets more throttled (a spike of N containers asks N × tries calls).
   */
  maxTries?: number | undefined;
  /** Whether a failure may be tried again. Default {@link isTransientAwsError}. */
  retryable?: ((error: unknown) => boolean) | undefined;
}

/** Error names AWS answers when it sheds load or briefly fails: the call may succeed when sent again. */
const TRANSIENT_NAMES = new Set([
  'ThrottlingException',
  'Throttling',
  'TooManyRequestsException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottledException',
  'InternalServerError',
  'InternalServiceError',
  'InternalFailure',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'TimeoutError',
]);

/**
 * True for a failed AWS read that may succeed when sent again: throttling, a 5xx, a timeout or a
 * connection that never answered. A read changes nothing, so sending it again is always safe.
 */
export function isTransientAwsError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // Powertools wraps the SDK's error in its own (`GetParameterError`), keeping it as the cause.
  if (error.cause instanceof Error && isTransientAwsError(error.cause)) return true;
  if (TRANSIENT_NAMES.has(error.name)) return true;
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  if (status !== undefined) return status === 429 || status >= 500;
  const code = (error as { code?: unknown }).code;
  return code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'ETIMEDOUT';
}

/**
 * Runs `call` until it succeeds, it fails with an error `retryable` refuses, it has been tried
 * `maxTries` times, or the next try would start after `deadlineAt`. Pauses use full jitter (uniform in `[0, min(maxMs, baseMs × 2^n))`),
 * so containers that were throttled together do not come back together. `call` receives the
 * time left in ms, to bound its own try. Throws the last error.
 */
export async function retryWithinBudget<T>(
  call: (remainingMs: number) => Promise<T>,
  options: RetryWithinBudgetOptions,
): Promise<T> {
  const { clock, random, sleep, deadlineAt } = options;
  const baseMs = options.baseMs ?? 100;
  const maxMs = options.maxMs ?? 1_000;
  const maxTries = options.maxTries ?? 4;
  const retryable = options.retryable ?? isTransientAwsError;
  for (let failures = 0; ; failures += 1) {
    try {
      return await call(Math.max(1, deadlineAt - clock.now()));
    } catch (error) {
      if (!retryable(error) || failures + 1 >= maxTries) throw error;
      const pause = Math.floor(random() * Math.min(maxMs, baseMs * 2 ** failures));
      if (clock.now() + pause >= deadlineAt) throw error;
      await sleep(pause);
    }
  }
}
