/**
 * Declared quotas' counters (docs/concepts.md#declared-quotas): admission's sliding minute (six
 * 10 s slices in the admission counters), taken with one conditional write per attempt. The
 * slices before the current one are read once per slice and container: they only ever fall after
 * their slice has passed (a rollback), so the cached sum errs on the safe side; a refusal reads
 * them again before it is final.
 */
import type { AdmissionStore } from '../admission/admission-store.js';
import {
  firstLiveSlice,
  RATE_SLICE_MS,
  RATE_WINDOW_MS,
  sliceBucket,
  sliceStart,
} from '../admission/admission-windows.js';
import { counterName, type PlannedLimit } from '../admission/limit-plan.js';
import { rateResetAt } from '../admission/take-limit.js';
import type { GiveBack } from './in-flight.js';

/** A reservation, or when the quota has room again (ms since the epoch). */
export type QuotaTake = { ok: true; giveBack: GiveBack } | { ok: false; resetAt: number };

/** Takes `amount` under a `requests` or `tokens` limit of the sliding minute. */
export interface QuotaCounter {
  take(limit: PlannedLimit, amount: number, now: number): Promise<QuotaTake>;
}

export function createQuotaCounter(store: AdmissionStore): QuotaCounter {
  const earlier = new Map<string, { slice: number; slices: Map<string, number> }>();
  const readEarlier = async (counter: string, now: number, fresh: boolean) => {
    const slice = sliceStart(now);
    const cached = earlier.get(counter);
    if (!fresh && cached?.slice === slice) return cached.slices;
    const slices = await store.read(counter, sliceBucket(firstLiveSlice(now)), now);
    if (earlier.size > 10_000) earlier.clear();
    earlier.set(counter, { slice, slices });
    return slices;
  };
  return {
    async take(limit, amount, now) {
      const counter = counterName(limit);
      const current = sliceStart(now);
      const slot = {
        counter,
        bucket: sliceBucket(current),
        expiresAt: current + RATE_WINDOW_MS + RATE_SLICE_MS,
      };
      let slices = new Map<string, number>();
      for (const fresh of [false, true]) {
        slices = await readEarlier(counter, now, fresh);
        let others = 0;
        for (const [bucket, value] of slices) if (bucket !== slot.bucket) others += value;
        const ceiling = limit.cap - others;
        const after = amount <= ceiling ? await store.take(slot, amount, ceiling) : undefined;
        if (after !== undefined) return { ok: true, giveBack: () => store.add(slot, -amount) };
      }
      return { ok: false, resetAt: rateResetAt(slices, limit.cap, amount, now) };
    },
  };
}
