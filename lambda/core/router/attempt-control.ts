import { classifyError } from '../failures/classify-error.js';
import { ProviderError } from '../failures/provider-error.js';
import type { Sleep } from '../time.js';
import type { RouteModel } from './route-types.js';

/** The abort wiring of one attempt: the caller's signal plus the attempt's own timeout. */
export interface AttemptControl {
  /** Aborts when the caller goes away or the attempt's time is up. */
  readonly signal: AbortSignal;
  /** Which of the two aborted the attempt, if either did. */
  cause(): 'caller' | 'timeout' | undefined;
  /** Ends the timeout (the attempt finished, or its stream is committed). */
  stopTimer(): void;
  /** Stops listening to the caller's signal (the attempt is over). */
  release(): void;
}

const TIMER_STOPPED = Object.freeze({ reason: 'attempt finished' });

/** Starts the timeout of one attempt through the injected `sleep`, so tests drive it with a fake clock. */
export function startAttempt(
  sleep: Sleep,
  timeoutMs: number,
  caller: AbortSignal | undefined,
): AttemptControl {
  const controller = new AbortController();
  const timer = new AbortController();
  let cause: 'caller' | 'timeout' | undefined;
  const onCallerAbort = () => {
    cause ??= 'caller';
    controller.abort(caller?.reason);
  };
  if (caller?.aborted) onCallerAbort();
  else caller?.addEventListener('abort', onCallerAbort, { once: true });
  sleep(Math.max(0, timeoutMs), timer.signal).then(
    () => {
      if (controller.signal.aborted || timer.signal.aborted) return;
      cause ??= 'timeout';
      controller.abort(new DOMException(`attempt timed out after ${timeoutMs} ms`, 'TimeoutError'));
    },
    () => {},
  );
  return {
    signal: controller.signal,
    cause: () => cause,
    // A constant reason: aborting without one builds a DOMException (a stack trace) per attempt.
    stopTimer: () => timer.abort(TIMER_STOPPED),
    release: () => caller?.removeEventListener('abort', onCallerAbort),
  };
}

/**
 * Settles as soon as `signal` aborts, whatever `promise` does: a model that ignores its signal
 * must not hold the loop (or a departed caller) hostage.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Our view of whatever an attempt threw. Who aborted decides first: the caller leaving is
 * `cancelled`, the attempt's own clock running out is `timeout`, whatever the SDK made of it.
 */
export function toProviderError(
  thrown: unknown,
  route: RouteModel,
  nowMs: number,
  abortCause: 'caller' | 'timeout' | undefined,
  timeoutMs: number,
): ProviderError {
  const identity = { provider: route.model.provider, model: route.model.key };
  if (abortCause === 'caller') {
    return new ProviderError({
      ...identity,
      failureClass: 'cancelled',
      message: 'the caller went away',
      cause: thrown,
    });
  }
  if (abortCause === 'timeout') {
    return new ProviderError({
      ...identity,
      failureClass: 'timeout',
      message: `attempt timed out after ${timeoutMs} ms`,
      cause: thrown,
    });
  }
  if (thrown instanceof ProviderError) return thrown;
  const c = classifyError(thrown, nowMs);
  return new ProviderError({
    ...identity,
    status: c.status,
    failureClass: c.failureClass,
    retryAfterMs: c.retryAfterMs,
    message: c.message,
    cause: thrown,
  });
}
