/**
 * Declared quotas' counters (docs/concepts.md#declared-quotas): a sliding minute in slices, kept in
 * the admission counters, taken with one conditional write per attempt. The window is the current
 * slice and the {@link QUOTA_SLICES} before it, a little more than a minute: any minute, however
 * it falls on the slices, lies within one such window, so no minute of the provider's (a fixed
 * one, whatever its alignment, or a sliding one) ever holds more than the declared quota. The
 * slices before the current one are read once per slice and container: they only ever fall after
 * their slice has passed (a rollback), so the cached sum errs on the safe side; a refusal reads
 * them again before it is final.
 */
import type { AdmissionStore } from '../admission/admission-store.js';
import { RATE_WINDOW_MS, sliceBucket } from '../admission/admission-windows.js';
import { counterName, type PlannedLimit } from '../admission/limit-plan.js';
import type { GiveBack } from './in-flight.js';

/** A reservation, or when the quota has room again (ms since the epoch). */
export type QuotaTake = { ok: true; giveBack: GiveBack } | { ok: false; resetAt: number };

/** Takes `amount` under a `requests` or `tokens` limit of the sliding minute. */
export interface QuotaCounter {
  take(limit: PlannedLimit, amount: number, now: number): Promise<QuotaTake>;
}

/**
 * Slices of a quota minute: 30 (2 s slices of a 60 s minute). The window counts one slice more
 * than a minute, so a route that always has demand gets 30/31 of its quota per minute; finer
 * slices would waste less but read the earlier slices more often (once per slice and container).
 */
export const QUOTA_SLICES = 30;

/** When enough of the oldest slices leave the minute for `amount` to fit under `cap`. */
function resetAt(
  slices: Map<string, number>,
  cap: number,
  amount: number,
  fallback: number,
  windowMs: number,
) {
  let used = 0;
  for (const v of slices.values()) used += v;
  for (const [bucket, value] of [...slices.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    used -= value;
    if (used + amount <= cap) return Number(bucket) + windowMs;
  }
  return fallback;
}

/**
 * A quota counter on `store`. `minuteMs` is the length of the quota minute: 60000, but for a
 * clock that runs faster (the demo's, `capacity.quotaMinuteMs`). A slice is `minuteMs / 30`
 * rounded up, never less: thirty slices always cover the minute.
 */
export function createQuotaCounter(store: AdmissionStore, minuteMs = RATE_WINDOW_MS): QuotaCounter {
  const sliceMs = Math.ceil(minuteMs / QUOTA_SLICES);
  // The current slice and QUOTA_SLICES before it: the window's length in ms.
  const windowMs = (QUOTA_SLICES + 1) * sliceMs;
  const sliceStart = (now: number) => now - (now % sliceMs);
  const firstLiveSlice = (now: number) => sliceStart(now) - QUOTA_SLICES * sliceMs;
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
        // Counted while in the window, kept one slice longer (a reader ignores expired buckets).
        expiresAt: current + windowMs + sliceMs,
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
        resetAt: resetAt(slices, limit.cap, amount, current + windowMs, windowMs),
      };
    },
  };
}
