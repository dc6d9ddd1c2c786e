import { AttemptTimeout } from '../failures/attempt-timeout.js';
import { explainedByOutput } from '../failures/output-allowance.js';
import { linkSignals } from '../linked-signal.js';
import type { Sleep } from '../time.js';

/** The time of one attempt: its single timer and the single signal every layer below honours. */
export interface AttemptDeadline {
  /**
   * Aborts when the caller goes away (the caller's reason) or the attempt's time is up (an
   * {@link AttemptTimeout} naming the phase). Passed as `CallOptions.signal`; adapters start no
   * timer of their own.
   */
  readonly signal: AbortSignal;
  /**
   * The first byte arrived (`CallOptions.onFirstByte`): the timer moves from the first-byte limit
   * to the total one, both counted from the attempt's start. Later calls do nothing.
   */
  firstByte(): void;
  /** Ends the timer (the attempt finished, or its stream is committed); the caller's abort still counts. */
  stopTimer(): void;
  /**
   * Ends this attempt alone with `reason` (a committed stream's idle limit: an `AttemptTimeout`
   * of phase `idle`), leaving the caller's signal as it is, so a continuation can still follow.
   */
  abort(reason: unknown): void;
}

/** The limits of one attempt, in ms from its start, each already capped by the request's deadline. */
export interface AttemptLimits {
  firstByteMs: number;
  totalMs: number;
  /**
   * The time the caller's `max_tokens` takes at the route's expected rate (`outputAllowanceMs`),
   * in ms: a total-phase timeout it explains is marked `callerSized`. 0 when the caller set no
   * `max_tokens` (or for a stream or embeddings, which get none).
   */
  allowanceMs: number;
}

const TIMER_STOPPED = Object.freeze({ reason: 'attempt finished' });

/**
 * Starts the one timer of one attempt through the injected `sleep` (so tests drive it with a fake
 * clock), linked with the caller's signal. It runs in two phases: until the first byte it fires
 * at `min(firstByteMs, totalMs)`; once {@link AttemptDeadline.firstByte} is called it fires at
 * `totalMs` from the start. A timer that already ends at `totalMs` keeps running: the phase only
 * changes the timeout's name. A total-phase timeout says whether the caller's output explains it
 * (`explainedByOutput`, from when the first byte came and `allowanceMs`).
 */
export function startAttemptDeadline(
  sleep: Sleep,
  now: () => number,
  limits: AttemptLimits,
  caller: AbortSignal | undefined,
): AttemptDeadline {
  const deadline = new AbortController();
  const startedAt = now();
  let timer = new AbortController();
  let firstByteAt: number | undefined;
  const totalTimeout = (firstByteAtMs: number) => {
    const facts = { totalMs: limits.totalMs, firstByteAtMs, allowanceMs: limits.allowanceMs };
    return new AttemptTimeout(limits.totalMs, 'total', explainedByOutput(facts));
  };
  const arm = (ms: number) => {
    const own = timer;
    sleep(Math.max(0, ms), own.signal).then(
      () => {
        if (own.signal.aborted || deadline.signal.aborted) return;
        deadline.abort(
          firstByteAt !== undefined
            ? totalTimeout(firstByteAt)
            : new AttemptTimeout(Math.min(limits.firstByteMs, limits.totalMs), 'first_byte'),
        );
      },
      () => {},
    );
  };
  arm(Math.min(limits.firstByteMs, limits.totalMs));
  return {
    signal: linkSignals(caller, deadline.signal),
    firstByte() {
      if (firstByteAt !== undefined || timer.signal.aborted) return;
      firstByteAt = now() - startedAt;
      if (limits.totalMs <= limits.firstByteMs) return;
      timer.abort(TIMER_STOPPED);
      timer = new AbortController();
      arm(limits.totalMs - firstByteAt);
    },
    // A constant reason: aborting without one builds a DOMException (a stack trace) per attempt.
    stopTimer: () => timer.abort(TIMER_STOPPED),
    abort: (reason) => deadline.abort(reason),
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
