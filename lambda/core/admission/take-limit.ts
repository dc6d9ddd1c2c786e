import type { AdmissionStore, CounterSlot } from './admission-store.js';
import {
  DAY_RETENTION_MS,
  dayBucket,
  firstLiveSlice,
  nextUtcMidnight,
  RATE_SLICE_MS,
  RATE_WINDOW_MS,
  sliceBucket,
  sliceStart,
  utcDay,
} from './admission-windows.js';
import { counterName, type PlannedLimit } from './limit-plan.js';

/** A limit's share of an admitted request, kept for the settlement. */
export interface Hold {
  limit: PlannedLimit;
  slot: CounterSlot;
  amount: number;
  /** The bucket's value after this request's reservation. */
  after: number;
}

/** Either the hold, or when the limit will have room again (ms since the epoch). */
export type TakeResult = { ok: true; hold: Hold } | { ok: false; resetAt: number };

/** When enough of the oldest slices leave the window for `amount` to fit under `cap`. */
function rateResetAt(slices: Map<string, number>, cap: number, amount: number, now: number): number {
  let used = 0;
  for (const v of slices.values()) used += v;
  const ordered = [...slices.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  for (const [bucket, value] of ordered) {
    used -= value;
    if (used + amount <= cap) return Number(bucket) + RATE_WINDOW_MS;
  }
  return sliceStart(now) + RATE_WINDOW_MS;
}

/** Requests or tokens in the sliding minute: one read of the live slices, one conditional write. */
async function takeRate(store: AdmissionStore, limit: PlannedLimit, amount: number, now: number) {
  const counter = counterName(limit);
  const current = sliceStart(now);
  const slot = { counter, bucket: sliceBucket(current), expiresAt: current + RATE_WINDOW_MS + RATE_SLICE_MS };
  const slices = await store.read(counter, sliceBucket(firstLiveSlice(now)), now);
  let others = 0;
  for (const [bucket, value] of slices) if (bucket !== slot.bucket) others += value;
  const ceiling = limit.cap - others;
  const after = amount <= ceiling ? await store.take(slot, amount, ceiling) : undefined;
  if (after !== undefined) return { ok: true as const, hold: { limit, slot, amount, after: after + others } };
  return { ok: false as const, resetAt: rateResetAt(slices, limit.cap, amount, now) };
}

/** Spend of the UTC day: one conditional write, no read. */
async function takeSpend(store: AdmissionStore, limit: PlannedLimit, amount: number, now: number) {
  const slot = {
    counter: counterName(limit),
    bucket: dayBucket(utcDay(now)),
    expiresAt: nextUtcMidnight(now) + DAY_RETENTION_MS,
  };
  const after = amount <= limit.cap ? await store.take(slot, amount, limit.cap) : undefined;
  if (after !== undefined) return { ok: true as const, hold: { limit, slot, amount, after } };
  return { ok: false as const, resetAt: nextUtcMidnight(now) };
}

/** Reserves `amount` under one limit, or says when it resets. Store errors propagate. */
export function takeLimit(
  store: AdmissionStore,
  limit: PlannedLimit,
  amount: number,
  now: number,
): Promise<TakeResult> {
  return limit.kind === 'spend' ? takeSpend(store, limit, amount, now) : takeRate(store, limit, amount, now);
}
