/**
 * What an attempt needs besides a healthy breaker (docs/concepts.md#bulkheads,
 * docs/concepts.md#declared-quotas): a free in-flight slot under every bulkhead of its route
 * (the provider's and the route's own) and room under its account route's declared quota. Both
 * are taken before the attempt and the in-flight slots are given back when it ends.
 */

/** Why a route cannot take an attempt now: at its bulkhead (`full`) or its declared quota (`quota`). */
export interface CapacityRefusal {
  reason: 'full' | 'quota';
  /** When trying again makes sense, in ms from now (at least 1000). */
  retryAfterMs: number;
}

/** The in-flight slots (and quota reservation) of one attempt. */
export interface CapacityLease {
  /** Gives the in-flight slots back; the quota reservation stays spent. Idempotent; never throws. */
  release(): void;
}

export type CapacityGrant = { ok: true; lease: CapacityLease } | ({ ok: false } & CapacityRefusal);

/** Bulkheads and quotas of the routes. */
export interface RouteCapacity {
  /** True when `routeKey` has a bulkhead or a quota; false: `acquire` always grants at no cost. */
  limits(routeKey: string): boolean;
  /**
   * Takes an in-flight slot under every bulkhead of `routeKey` and reserves one request and
   * `tokens` tokens under its account route's quota, all or nothing. Never throws: a store error
   * grants (the breakers still protect the route).
   */
  acquire(routeKey: string, tokens: number): Promise<CapacityGrant>;
}

/** A lease that gives nothing back. */
export const NO_LEASE: CapacityLease = Object.freeze({ release() {} });
