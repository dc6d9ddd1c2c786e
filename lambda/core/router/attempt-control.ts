import { AttemptTimeout } from '../failures/attempt-timeout.js';
import { explainedByOutput } from '../failures/output-allowance.js';
import { linkSignals } from '../linked-signal.js';
import type { SetTimer } from '../time.js';

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

/**
 * Starts the one timer of one attempt through the injected `setTimer` (so tests drive it with a
 * fake clock), linked with the caller's signal. It runs in two phases: until the first byte it
 * fires at `min(firstByteMs, totalMs)`; once {@link AttemptDeadline.firstByte} is called it fires
 * at `totalMs` from the start. A timer that already ends at `totalMs` keeps running: the phase only
 * changes the timeout's name. A total-phase timeout says whether the caller's output explains it
 * (`explainedByOutput`, from when the first byte came and `allowanceMs`). Per attempt: one
 * `AbortController` (the deadline), one linked signal and one timer; stopping it clears the timer.
 */
export function startAttemptDeadline(
  setTimer: SetTimer,
  now: () => number,
  limits: AttemptLimits,
  caller: AbortSignal | undefined,
): AttemptDeadline {
  const deadline = new AbortController();
  const startedAt = now();
  let firstByteAt: number | undefined;
  let stopped = false;
  const fire = () => {
    if (stopped || deadline.signal.aborted) return;
    stopped = true;
    if (firstByteAt === undefined) {
      deadline.abort(new AttemptTimeout(Math.min(limits.firstByteMs, limits.totalMs), 'first_byte'));
      return;
    }
    const facts = { totalMs: limits.totalMs, firstByteAtMs: firstByteAt, allowanceMs: limits.allowanceMs };
    deadline.abort(new AttemptTimeout(limits.totalMs, 'total', explainedByOutput(facts)));
  };
  let cancel = setTimer(Math.max(0, Math.min(limits.firstByteMs, limits.totalMs)), fire);
  return {
    signal: caller === undefined ? deadline.signal : linkSignals(caller, deadline.signal),
    firstByte() {
      if (firstByteAt !== undefined || stopped) return;
      firstByteAt = now() - startedAt;
      if (limits.totalMs <= limits.firstByteMs) return;
      cancel();
      cancel = setTimer(Math.max(0, limits.totalMs - firstByteAt), fire);
    },
    stopTimer() {
      if (stopped) return;
      stopped = true;
      cancel();
    },
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
