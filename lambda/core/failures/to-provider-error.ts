import { AttemptTimeout } from './attempt-timeout.js';
import { classifyError } from './classify-error.js';
import type { FailureSignals } from './failure-signals.js';
import { ProviderError } from './provider-error.js';

/** What is known of a failed attempt when its error is turned into a `ProviderError`. */
export interface FailedAttempt {
  /** Provider name from the config, e.g. `main`. */
  provider: string;
  /** Model key from the catalog, e.g. `gpt-mini` (never the raw upstream id). */
  model: string;
  /** The attempt's signal (`CallOptions.signal`): its reason says who aborted it. */
  signal: AbortSignal;
  /** Wall clock in ms, used to turn an HTTP-date `Retry-After` into a delay. */
  nowMs: number;
  /** The caller's request, so an echo of it never quarantines the route (`CallOptions.callerInput`). */
  callerInput?: unknown;
  /**
   * The evidence to classify by: the family's signal table (its rows plus the generic ones).
   * Default: the generic rows only (the router's view of a model that broke its contract).
   */
  signals?: FailureSignals | undefined;
}

/**
 * Turns whatever a failed attempt threw into our `ProviderError`; called once per failed attempt,
 * where the raw error is caught (the adapter, or the router for a model that broke its contract).
 *
 * Precedence: an aborted signal decides first, by its reason: the attempt's deadline
 * ({@link AttemptTimeout}) is `timeout`, anything else is the caller going away (`cancelled`).
 * Then an `AttemptTimeout` thrown by the transport itself (its connect limit) is `timeout` too.
 * Either way the timeout's phase (connect, first byte, total), and whether the caller's own
 * `max_tokens` explains it, go with it to the ledger.
 * SDKs report aborts inconsistently (openai's stream iterator even ends silently), and the body
 * of an aborted call says nothing useful. Then an error that already is a `ProviderError` passes
 * as it is, and anything else goes through the shared classifier.
 */
export function toProviderError(thrown: unknown, attempt: FailedAttempt): ProviderError {
  const { provider, model, signal } = attempt;
  if (signal.aborted) {
    const reason: unknown = signal.reason;
    if (reason instanceof AttemptTimeout) return timedOut(reason, attempt, thrown);
    return new ProviderError({
      provider,
      model,
      failureClass: 'cancelled',
      message: 'upstream call aborted by the caller signal',
      cause: thrown,
    });
  }
  if (thrown instanceof AttemptTimeout) return timedOut(thrown, attempt, thrown);
  if (thrown instanceof ProviderError) return thrown;
  const classified = classifyError(thrown, attempt.nowMs, {
    callerInput: attempt.callerInput,
    signals: attempt.signals,
  });
  return new ProviderError({
    provider,
    model,
    status: classified.status,
    failureClass: classified.failureClass,
    retryAfterMs: classified.retryAfterMs,
    message: classified.message,
    cause: thrown,
  });
}

function timedOut(
  timeout: AttemptTimeout,
  { provider, model }: FailedAttempt,
  thrown: unknown,
): ProviderError {
  return new ProviderError({
    provider,
    model,
    failureClass: 'timeout',
    timeoutPhase: timeout.phase,
    ...(timeout.callerSized ? { callerSized: true } : {}),
    message: timeout.message,
    cause: thrown,
  });
}
