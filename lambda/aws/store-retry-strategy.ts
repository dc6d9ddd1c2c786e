import type { RetryErrorInfo, RetryStrategyV2 } from '@smithy/types';

/** Pause before the one retry, in ms: long enough for a throttled partition, short on a hot path. */
export const STORE_RETRY_DELAY_MS = 50;

/**
 * True when the failed call certainly did not change the table, so sending it again cannot count
 * an attempt twice: DynamoDB refused it for throughput, or no connection was ever made. A call
 * that timed out waiting for its answer, or whose socket broke, may have been applied already —
 * the breaker's counters are `ADD`s, so such a call is reported instead of repeated.
 */
export function isSafeToResend(errorInfo: RetryErrorInfo): boolean {
  if (errorInfo.errorType === 'THROTTLING') return true;
  const error = errorInfo.error as { name?: unknown; message?: unknown; code?: unknown } | undefined;
  if (!error) return false;
  if (error.code === 'ECONNREFUSED') return true;
  return (
    error.name === 'TimeoutError' &&
    typeof error.message === 'string' &&
    error.message.includes('did not establish a connection')
  );
}

/**
 * The store client's retry rule: at most `maxAttempts` calls, and a retry only when
 * {@link isSafeToResend} says the failed call left no trace. The SDK's standard strategy also
 * retries request timeouts and 5xx answers, which for a non-idempotent update counts twice.
 */
export function storeRetryStrategy(maxAttempts: number): RetryStrategyV2 {
  const token = (count: number, delay: number) => ({
    getRetryCount: () => count,
    getRetryDelay: () => delay,
  });
  return {
    acquireInitialRetryToken: async () => token(0, 0),
    refreshRetryTokenForRetry: async (previous, errorInfo) => {
      const next = previous.getRetryCount() + 1;
      if (next >= maxAttempts || !isSafeToResend(errorInfo))
        throw errorInfo.error ?? new Error('store call failed');
      return token(next, STORE_RETRY_DELAY_MS);
    },
    recordSuccess: () => {},
  };
}
