/** Wall-clock source, injected so that the core never calls `Date.now()` itself. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** A uniform random number in [0, 1), injected so that selection is reproducible in tests. */
export type Random = () => number;

/** Waits `ms` milliseconds; rejects (or resolves early, by contract: rejects) when `signal` aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;
