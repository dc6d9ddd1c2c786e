import { AttemptTimeout } from '../failures/attempt-timeout.js';
import { linkSignals } from '../linked-signal.js';
import type { Sleep } from '../time.js';

/** The time of one attempt: its single timer and the single signal every layer below honours. */
export interface AttemptDeadline {
  /**
   * Aborts when the caller goes away (the caller's reason) or the attempt's time is up (an
   * {@link AttemptTimeout}). Passed as `CallOptions.signal`; adapters start no timer of their own.
   */
  readonly signal: AbortSignal;
  /** Ends the timer (the attempt finished, or its stream is committed); the caller's abort still counts. */
  stopTimer(): void;
}

const TIMER_STOPPED = Object.freeze({ reason: 'attempt finished' });

/**
 * Starts the one timer of one attempt, `timeoutMs` long, through the injected `sleep` (so tests
 * drive it with a fake clock), linked with the caller's signal.
 */
export function startAttemptDeadline(
  sleep: Sleep,
  timeoutMs: number,
  caller: AbortSignal | undefined,
): AttemptDeadline {
  const deadline = new AbortController();
  const timer = new AbortController();
  sleep(Math.max(0, timeoutMs), timer.signal).then(
    () => {
      if (!timer.signal.aborted) deadline.abort(new AttemptTimeout(timeoutMs));
    },
    () => {},
  );
  return {
    signal: linkSignals(caller, deadline.signal),
    // A constant reason: aborting without one builds a DOMException (a stack trace) per attempt.
    stopTimer: () => timer.abort(TIMER_STOPPED),
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
