import { classifyError } from '../../core/failures/classify-error.js';
import { ProviderError } from '../../core/failures/provider-error.js';

/** Who failed: the provider name and the model KEY (never the raw upstream id). */
export interface ErrorSubject {
  /** Provider name from the config, e.g. `openai`. */
  provider: string;
  /** Model key from the catalog, e.g. `gpt-mini`. */
  model: string;
}

/** What the adapter knows about the attempt when an error reaches it. */
export interface AttemptState extends ErrorSubject {
  /** The caller's signal as passed in `CallOptions`. */
  callerSignal: AbortSignal;
  /** True when the adapter's own attempt timer fired. */
  timedOut: boolean;
  /** The attempt timeout in ms, for the message. */
  timeoutMs: number;
  /** Wall clock in ms, used to turn an HTTP-date `Retry-After` into a delay. */
  nowMs: number;
  /** The caller's request, so an echo of it never quarantines the route (`CallOptions.callerInput`). */
  callerInput?: unknown;
}

/**
 * Turns anything an SDK threw into our `ProviderError`.
 *
 * Precedence: a caller abort wins (class `cancelled`; the attempt loop knows whether it aborted
 * for its own deadline or because the client went away), then our own attempt timer (class
 * `timeout`), then an error that already is a `ProviderError`, then the shared classifier. The
 * abort checks come first because SDKs report aborts inconsistently (openai's stream iterator
 * even ends silently), and the upstream body of an aborted call says nothing useful.
 */
export function toProviderError(error: unknown, state: AttemptState): ProviderError {
  const { provider, model } = state;
  if (state.callerSignal.aborted) {
    return new ProviderError({
      provider,
      model,
      failureClass: 'cancelled',
      message: 'upstream call aborted by the caller signal',
      cause: error,
    });
  }
  if (state.timedOut) {
    return new ProviderError({
      provider,
      model,
      failureClass: 'timeout',
      message: `upstream call timed out after ${state.timeoutMs} ms`,
      cause: error,
    });
  }
  if (error instanceof ProviderError) return error;
  const classified = classifyError(error, state.nowMs, { callerInput: state.callerInput });
  return new ProviderError({
    provider,
    model,
    status: classified.status,
    failureClass: classified.failureClass,
    retryAfterMs: classified.retryAfterMs,
    message: classified.message,
    cause: error,
  });
}

/** A `malformed_response` error: the upstream answered, but not in the shape its protocol promises. */
export function malformedResponse(subject: ErrorSubject, message: string, cause?: unknown): ProviderError {
  return new ProviderError({
    provider: subject.provider,
    model: subject.model,
    failureClass: 'malformed_response',
    message: `malformed upstream response: ${message}`,
    cause,
  });
}
