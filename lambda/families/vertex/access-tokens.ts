/**
 * One service account's access token, cached and refreshed before it expires (docs/operations.md#vertex-ai-credentials):
 * a token with more than `refreshBeforeExpiryMs` left is used as is; within that margin it is
 * still used while one refresh runs in the background; without a valid token the call waits for
 * the refresh, within its own attempt's signal. Concurrent callers share one token request.
 */
import type { Clock } from '../../core/time.js';
import type { MintedToken } from './token-endpoint.js';

/** Options of {@link createAccessTokens}. */
export interface AccessTokenOptions {
  /** Asks the token endpoint for a new token. */
  mint: () => Promise<MintedToken>;
  clock: Clock;
  /** Refresh this many ms before the token expires. */
  refreshBeforeExpiryMs: number;
  /** After a failed background refresh, the next one waits this many ms. */
  retryPauseMs: number;
}

/** The current token of one service account. */
export interface AccessTokens {
  /** A valid token; rejects with the token request's failure, or the signal's reason. */
  token(signal: AbortSignal): Promise<string>;
}

interface Held {
  token: string;
  /** Epoch ms, counted from when the request for it started. */
  expiresAt: number;
}

/** Resolves as `promise` does, or rejects with the signal's reason when it aborts first. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export function createAccessTokens(options: AccessTokenOptions): AccessTokens {
  const { clock, mint } = options;
  let held: Held | undefined;
  let inFlight: Promise<Held> | undefined;
  let pausedUntil = 0;

  const refresh = (): Promise<Held> => {
    if (inFlight) return inFlight;
    const startedAt = clock.now();
    const request = mint().then(({ token, expiresInS }) => {
      held = { token, expiresAt: startedAt + expiresInS * 1000 };
      return held;
    });
    inFlight = request;
    // Cleared when it settles; a waiter that gave up (its signal) must not leave a rejection unhandled.
    request.then(
      () => {
        inFlight = undefined;
      },
      () => {
        inFlight = undefined;
      },
    );
    return request;
  };

  return {
    async token(signal) {
      const now = clock.now();
      if (held && now < held.expiresAt) {
        if (now >= held.expiresAt - options.refreshBeforeExpiryMs && now >= pausedUntil) {
          refresh().catch(() => {
            pausedUntil = clock.now() + options.retryPauseMs;
          });
        }
        return held.token;
      }
      return (await untilAborted(refresh(), signal)).token;
    },
  };
}
