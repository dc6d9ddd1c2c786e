/**
 * The access tokens of one `vertex` provider: its service-account key is read at every attempt
 * (like an API key, so a rotated key is used at once), and each distinct key has its own cached
 * token. Failures are turned into `ProviderError`s here, per model:
 *
 * - no key, or a key that is not a usable service-account key → `not_configured` (this process's
 *   configuration: the chain falls back, no breaker sample, no alert);
 * - the token endpoint refuses the key (400, 401, 403: revoked, disabled, wrong key) →
 *   `upstream_auth` (our credential: quarantine and alert);
 * - anything else (5xx, 429, unreachable, too slow) → the shared classifier's class.
 */

import { classifyError } from '../../core/failures/classify-error.js';
import { ProviderError } from '../../core/failures/provider-error.js';
import type { Clock } from '../../core/time.js';
import type { ErrorSubject } from '../shared/malformed-response.js';
import { type AccessTokens, createAccessTokens } from './access-tokens.js';
import { parseServiceAccount } from './service-account.js';
import { createTokenMinter, TokenEndpointError } from './token-endpoint.js';
import { VERTEX_SIGNALS } from './vertex-signals.js';

/** Options of {@link createVertexTokens}. */
export interface VertexTokensOptions {
  /** Provider name from the config. */
  provider: string;
  /** The service-account key JSON now, or undefined when this process has none. */
  credentials: () => string | undefined;
  /** Where the key should come from, for the operator (never the key). */
  hint: () => string;
  /** The variable a caller may be told to set (`ProviderAccess.callerHint`); default none. */
  callerHint?: (() => string | undefined) | undefined;
  /** `providers.<name>.refreshBeforeExpiryMs`. */
  refreshBeforeExpiryMs: number;
  /** `providers.<name>.tokenTimeoutMs`. */
  tokenTimeoutMs: number;
  clock: Clock;
}

/** The bearer token of one attempt on a model of this provider. */
export type VertexTokens = (subject: ErrorSubject, signal: AbortSignal) => Promise<string>;

type KeyState = { text: string } & ({ tokens: AccessTokens } | { problem: string });

export function createVertexTokens(options: VertexTokensOptions): VertexTokens {
  let current: KeyState | undefined;
  const stateOf = (text: string): KeyState => {
    if (current?.text === text) return current;
    const parsed = parseServiceAccount(text);
    current = parsed.ok
      ? {
          text,
          tokens: createAccessTokens({
            mint: createTokenMinter(parsed.account, options.tokenTimeoutMs),
            clock: options.clock,
            refreshBeforeExpiryMs: options.refreshBeforeExpiryMs,
            retryPauseMs: options.tokenTimeoutMs,
          }),
        }
      : { text, problem: parsed.problem };
    return current;
  };

  return async (subject, signal) => {
    const text = options.credentials();
    const notConfigured = (why: string) =>
      new ProviderError({
        ...subject,
        failureClass: 'not_configured',
        setting: options.callerHint?.(),
        message: `${why} (set ${options.hint()})`,
      });
    if (text === undefined || text.trim() === '')
      throw notConfigured(`no service-account key for provider '${options.provider}'`);
    const state = stateOf(text);
    if ('problem' in state) throw notConfigured(`provider '${options.provider}': ${state.problem}`);
    try {
      return await state.tokens.token(signal);
    } catch (error) {
      throw signal.aborted ? error : tokenFailure(subject, error, options.clock.now());
    }
  };
}

/** A failed token request as the attempt's failure (see the file comment). */
function tokenFailure(subject: ErrorSubject, error: unknown, nowMs: number): ProviderError {
  if (error instanceof TokenEndpointError && [400, 401, 403].includes(error.status)) {
    return new ProviderError({
      ...subject,
      status: error.status,
      failureClass: 'upstream_auth',
      message: `the token endpoint refused the service-account key (${error.status}${error.code ? ` ${error.code}` : ''})`,
      cause: error,
    });
  }
  const classified = classifyError(error, nowMs, { signals: VERTEX_SIGNALS });
  return new ProviderError({
    ...subject,
    status: classified.status,
    failureClass: classified.failureClass,
    retryAfterMs: classified.retryAfterMs,
    message: `token endpoint: ${classified.message}`,
    cause: error,
  });
}
