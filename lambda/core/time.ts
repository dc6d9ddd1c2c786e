/** Wall-clock source, injected so that the core never calls `Date.now()` itself. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** A uniform random number in [0, 1), injected so that selection is reproducible in tests. */
export type Random = () => number;

/** Waits `ms` milliseconds; rejects (or resolves early, by contract: rejects) when `signal` aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * Calls `fire` once after `ms` milliseconds unless the returned function cancels it first: the
 * cheap form of {@link Sleep} for the timers of the hot path (no promise, no `AbortController`,
 * no abort event to cancel it). `setTimeout`/`clearTimeout` in production.
 */
export type SetTimer = (ms: number, fire: () => void) => () => void;

/** Set on the cancel's abort, so that cancelling builds no `DOMException` (a stack trace). */
const CANCELLED = Object.freeze({ reason: 'timer cancelled' });

/**
 * A {@link SetTimer} made of a {@link Sleep}, for wiring that injects only a sleep (tests with a
 * fake clock): one `AbortController` per timer, as before the cheap form existed.
 */
export function timerOfSleep(sleep: Sleep): SetTimer {
  return (ms, fire) => {
    const cancel = new AbortController();
    sleep(ms, cancel.signal).then(
      () => {
        if (!cancel.signal.aborted) fire();
      },
      () => {},
    );
    return () => cancel.abort(CANCELLED);
  };
}
