import type { AdmissionStore, CounterSlot } from '../core/admission/admission-store.js';
import type { Clock } from '../core/time.js';

interface Bucket {
  value: number;
  expiresAt: number;
}

/**
 * Admission counters in this process's memory: one gateway's limits, exact under any
 * concurrency (every change is synchronous). Expired buckets are dropped when their counter is read.
 */
export function createMemoryAdmissionStore(clock: Clock): AdmissionStore {
  const counters = new Map<string, Map<string, Bucket>>();
  const bucketsOf = (counter: string) => {
    const found = counters.get(counter);
    if (found) return found;
    const fresh = new Map<string, Bucket>();
    counters.set(counter, fresh);
    return fresh;
  };
  const live = (slot: CounterSlot) => {
    const b = bucketsOf(slot.counter).get(slot.bucket);
    return b && b.expiresAt > clock.now() ? b.value : 0;
  };
  const put = (slot: CounterSlot, value: number) =>
    bucketsOf(slot.counter).set(slot.bucket, { value, expiresAt: slot.expiresAt });

  return {
    async read(counter, fromBucket, now) {
      const found = new Map<string, number>();
      const buckets = bucketsOf(counter);
      for (const [bucket, b] of buckets) {
        if (b.expiresAt <= now) buckets.delete(bucket);
        else if (bucket >= fromBucket) found.set(bucket, b.value);
      }
      return found;
    },
    async take(slot, amount, ceiling) {
      const after = live(slot) + amount;
      if (after > ceiling) return undefined;
      put(slot, after);
      return after;
    },
    async add(slot, delta) {
      put(slot, live(slot) + delta);
    },
  };
}
