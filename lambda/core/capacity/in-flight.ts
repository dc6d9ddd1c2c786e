/**
 * In-flight counters of bulkheads (docs/concepts.md#bulkheads): in this process's memory, or
 * shared through the admission counters of the breaker table as a lease counter with a TTL.
 */
import type { AdmissionStore } from '../admission/admission-store.js';
import { sliceBucket } from '../admission/admission-windows.js';

/** Gives one in-flight slot back. */
export type GiveBack = () => Promise<void>;

/** Counts attempts in flight per counter name. */
export interface InFlightCounter {
  /** Takes one slot of `counter` when fewer than `max` are in flight; undefined when it is full. */
  take(counter: string, max: number, now: number): Promise<GiveBack | undefined>;
}

/**
 * In-flight counts of this process: exact. A slot not given back within `leaseMs` stops counting,
 * so an attempt whose end was never reported cannot fill a bulkhead for good.
 */
export function createMemoryInFlight(leaseMs: number): InFlightCounter {
  const leases = new Map<string, Map<number, number>>();
  let next = 0;
  return {
    async take(counter, max, now) {
      let held = leases.get(counter);
      if (!held) {
        held = new Map();
        leases.set(counter, held);
      }
      for (const [id, expiresAt] of held) if (expiresAt <= now) held.delete(id);
      if (held.size >= max) return undefined;
      const id = next++;
      held.set(id, now + leaseMs);
      const mine = held;
      return async () => {
        mine.delete(id);
      };
    },
  };
}

/** Prefix of shared in-flight counters among the admission counters (`admission#inflight:<name>`). */
export const IN_FLIGHT_COUNTER_PREFIX = 'inflight:';

/**
 * In-flight counts shared by every container on `store` (the breaker table's admission counters):
 * a lease is `+1` on the bucket of the `leaseMs` period it was taken in, under the condition that
 * this bucket plus the previous one stay at or below `max` (one conditional write), and `-1` on
 * the same bucket when it is given back (one write). A bucket counts for two periods, then its
 * item expires, so a lease a dead container never gave back frees itself after at most
 * `2 × leaseMs`. The previous bucket's value is read once per period and container (it only
 * falls by then, so the cached value errs on the safe side) and read again when a take is refused.
 */
export function createSharedInFlight(store: AdmissionStore, leaseMs: number): InFlightCounter {
  const previous = new Map<string, { start: number; value: number }>();
  const readPrevious = async (counter: string, start: number, now: number, fresh: boolean) => {
    const cached = previous.get(counter);
    if (!fresh && cached?.start === start) return cached.value;
    const buckets = await store.read(counter, sliceBucket(start), now);
    const value = Math.max(0, buckets.get(sliceBucket(start)) ?? 0);
    if (previous.size > 10_000) previous.clear();
    previous.set(counter, { start, value });
    return value;
  };
  return {
    async take(name, max, now) {
      const counter = `${IN_FLIGHT_COUNTER_PREFIX}${name}`;
      const start = now - (now % leaseMs);
      const slot = { counter, bucket: sliceBucket(start), expiresAt: start + 2 * leaseMs };
      for (const fresh of [false, true]) {
        const before = await readPrevious(counter, start - leaseMs, now, fresh);
        const taken = max - before >= 1 ? await store.take(slot, 1, max - before) : undefined;
        if (taken !== undefined) return () => store.add(slot, -1);
      }
      return undefined;
    },
  };
}

/**
 * `shared`, but counting in `local` (this process's memory) for a take the store could not
 * answer, so that a slow or failing store degrades to per-process bulkheads, never to none; `onError`
 * hears each store error.
 */
export function withLocalFallback(
  shared: InFlightCounter,
  local: InFlightCounter,
  onError: (error: unknown) => void,
): InFlightCounter {
  return {
    async take(counter, max, now) {
      try {
        return await shared.take(counter, max, now);
      } catch (error) {
        onError(error);
        return local.take(counter, max, now);
      }
    },
  };
}
