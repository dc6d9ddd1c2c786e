/**
 * Declared quotas' counters (docs/concepts.md#declared-quotas): admission's sliding minute (six
 * 10 s slices in the admission counters), taken with one conditional write per attempt. The
 * slices before the current one are read once per slice and container: they only ever fall after
 * their slice has passed (a rollback), so the cached sum errs on the safe side; a refusal reads
 * them again before it is final.
 */
import type { AdmissionStore } from '../admission/admission-store.js';
import { RATE_SLICE_MS, RATE_WINDOW_MS, sliceBucket } from '../admission/admission-windows.js';
import { counterName, type PlannedLimit } from '../admission/limit-plan.js';
import type { GiveBack } from './in-flight.js';

/** A reservation, or when the quota has room again (ms since the epoch). */
export type QuotaTake = { ok: true; giveBack: GiveBack } | { ok: false; resetAt: number };

/** Takes `amount` under a `requests` or `tokens` limit of the sliding minute. */
export interface QuotaCounter {
  take(limit: PlannedLimit, amount: number, now: number): Promise<QuotaTake>;
}

/** Slices of a quota minute, as admission's (a 60 s minute has 10 s slices). */
const SLICES = RATE_WINDOW_MS / RATE_SLICE_MS;

/** When enough of the oldest slices leave the minute for `amount` to fit under `cap`. */
function resetAt(
  slices: Map<string, number>,
  cap: number,
  amount: number,
  fallback: number,
  minuteMs: number,
) {
  let used = 0;
  for (const v of slices.values()) used += v;
  for (const [bucket, value] of [...slices.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    used -= value;
    if (used + amount <= cap) return Number(bucket) + minuteMs;
  }
  return fallback;
}

/**
 * A quota counter on `store`. `minuteMs` is the length of the quota minute: 60000, but for a
 * clock that runs faster (the demo's, `capacity.quotaMinuteMs`).
 */
export function createQuotaCounter(store: AdmissionStore, minuteMs = RATE_WINDOW_MS): QuotaCounter {
  const sliceMs = Math.max(1, Math.floor(minuteMs / SLICES));
  const sliceStart = (now: number) => now - (now % sliceMs);
  const firstLiveSlice = (now: number) => sliceStart(now) - (SLICES - 1) * sliceMs;
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
      return {
        ok: false,
        resetAt: resetAt(slices, limit.cap, amount, current + SLICES * sliceMs, SLICES * sliceMs),
      };
    },
  };
}
