import type { Clock, Random, SetTimer, Sleep } from '../core/time.js';

/** The real clock, for the edges that wire the core (local gateway, Lambda handlers). */
export const systemClock: Clock = { now: () => Date.now() };

export const systemRandom: Random = Math.random;

/** `setTimeout` as a `Sleep`: rejects with the signal's reason when it aborts, clearing the timer. */
export const systemSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** `setTimeout` as a {@link SetTimer}: the cancel clears it. */
export const systemTimer: SetTimer = (ms, fire) => {
  const timer = setTimeout(fire, ms);
  return () => clearTimeout(timer);
};
