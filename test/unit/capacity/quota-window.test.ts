import { describe, expect, it } from 'vitest';
import type { AdmissionStore } from '../../../lambda/core/admission/admission-store.js';
import { createQuotaCounter, QUOTA_SLICES } from '../../../lambda/core/capacity/quota-counter.js';
import { createMemoryAdmissionStore } from '../../../lambda/stores/memory-admission-store.js';

const LIMIT = { scope: 'route', name: 'pa/model-a', kind: 'requests', cap: 10, field: 'f' } as const;

/**
 * Takes as many requests as the counter grants, every `stepMs` from `startMs` for `forMs`: a route
 * that always has more demand than quota. Returns the time of every grant.
 */
async function saturate(minuteMs: number, startMs: number, stepMs: number, forMs: number) {
  let now = startMs;
  const clock = { now: () => now };
  const counter = createQuotaCounter(createMemoryAdmissionStore(clock), minuteMs);
  const granted: number[] = [];
  for (; now < startMs + forMs; now += stepMs) {
    while ((await counter.take(LIMIT, 1, now)).ok) granted.push(now);
  }
  return granted;
}

/** The most grants in any window [a, a + minuteMs), whatever its alignment. */
function busiestMinute(granted: readonly number[], minuteMs: number): number {
  let most = 0;
  let from = 0;
  for (let to = 0; to < granted.length; to++) {
    while ((granted[to] as number) - (granted[from] as number) >= minuteMs) from++;
    most = Math.max(most, to - from + 1);
  }
  return most;
}

describe('declared quota window', () => {
  it.each([
    // The demo's 400 ms minute (slices of 14 ms), at two alignments to the epoch and two paces.
    [400, 1_764_567_600_000, 1],
    [400, 1_764_567_600_017, 7],
    // The real minute (2 s slices).
    [60_000, 1_764_567_600_000, 250],
    [60_000, 1_764_567_603_333, 1_000],
  ])(
    'no minute of %i ms, however aligned, holds more than the declared quota (start %i, a try every %i ms)',
    async (minuteMs, startMs, stepMs) => {
      const granted = await saturate(minuteMs, startMs, stepMs, minuteMs * 20);
      expect(busiestMinute(granted, minuteMs)).toBe(LIMIT.cap);
      // A saturated route still gets the quota of every stretch of QUOTA_SLICES + 1 slices.
      const slices = (minuteMs * 20) / Math.ceil(minuteMs / QUOTA_SLICES);
      expect(granted.length).toBeGreaterThanOrEqual(Math.floor(slices / (QUOTA_SLICES + 1)) * LIMIT.cap);
    },
  );

  it('the request that fills the quota is granted, the next one is refused until the oldest slice leaves the window', async () => {
    let now = 1_764_567_600_000;
    const counter = createQuotaCounter(createMemoryAdmissionStore({ now: () => now }), 60_000);
    for (let i = 0; i < LIMIT.cap; i++) expect((await counter.take(LIMIT, 1, now)).ok).toBe(true);
    const refused = await counter.take(LIMIT, 1, now);
    // The slice of the first grant (2 s) leaves the window QUOTA_SLICES + 1 slices after it began.
    expect(refused).toEqual({ ok: false, resetAt: now + 62_000 });
    now += 61_999;
    expect((await counter.take(LIMIT, 1, now)).ok).toBe(false);
    now += 1;
    expect((await counter.take(LIMIT, 1, now)).ok).toBe(true);
  });
});

/** A memory store that counts its calls and can hand buckets back newest first (as no contract forbids). */
function countingStore(clock: { now(): number }, newestFirst = false) {
  const inner = createMemoryAdmissionStore(clock);
  const calls = { read: 0, take: 0 };
  const store: AdmissionStore = {
    async read(counter, fromBucket, now) {
      calls.read++;
      const found = await inner.read(counter, fromBucket, now);
      return newestFirst ? new Map([...found].reverse()) : found;
    },
    async take(slot, amount, ceiling) {
      calls.take++;
      return inner.take(slot, amount, ceiling);
    },
    add: (slot, delta) => inner.add(slot, delta),
  };
  return { store, calls };
}

const TOKENS = { scope: 'route', name: 'pa/model-a', kind: 'tokens', cap: 3, field: 'f' } as const;
/** A time at the start of a 2 s slice of the 60 s minute. */
const T0 = 1_764_567_600_000;

describe('declared quota counter', () => {
  it('reads the earlier slices once per slice, and again before a refusal is final', async () => {
    let now = T0;
    const { store, calls } = countingStore({ now: () => now });
    const counter = createQuotaCounter(store, 60_000);
    await counter.take(TOKENS, 1, now);
    await counter.take(TOKENS, 1, now + 500);
    expect(calls.read).toBe(1);
    now += 2_000;
    await counter.take(TOKENS, 1, now);
    expect(calls.read).toBe(2);
    // Full now: the refusal reads again (fresh) before it is final.
    expect((await counter.take(TOKENS, 1, now)).ok).toBe(false);
    expect(calls.read).toBe(3);
  });

  it('a refusal whose earlier slices already fill the quota costs no write', async () => {
    let now = T0;
    const { store, calls } = countingStore({ now: () => now });
    const counter = createQuotaCounter(store, 60_000);
    await counter.take(TOKENS, 3, now);
    now += 2_000;
    const writes = calls.take;
    expect((await counter.take(TOKENS, 1, now)).ok).toBe(false);
    expect(calls.take).toBe(writes);
  });

  it('grants what the fresh read allows when another container gave back an earlier reservation', async () => {
    let now = T0;
    const { store } = countingStore({ now: () => now });
    const a = createQuotaCounter(store, 60_000);
    const b = createQuotaCounter(store, 60_000);
    const early = await b.take(TOKENS, 1, now);
    now += 2_000;
    expect((await a.take(TOKENS, 1, now)).ok).toBe(true);
    // b gives its reservation back (a later check of its attempt refused): a's cache still holds it.
    if (early.ok) await early.giveBack();
    expect((await a.take(TOKENS, 2, now)).ok).toBe(true);
    expect((await a.take(TOKENS, 1, now)).ok).toBe(false);
  });

  it('a reservation given back makes room at once', async () => {
    const now = T0;
    const counter = createQuotaCounter(countingStore({ now: () => now }).store, 60_000);
    const taken = await counter.take(TOKENS, 3, now);
    expect((await counter.take(TOKENS, 1, now)).ok).toBe(false);
    if (taken.ok) await taken.giveBack();
    expect((await counter.take(TOKENS, 3, now)).ok).toBe(true);
  });

  it('says when enough of the oldest slices leave the window, whatever order the store returns them in', async () => {
    let now = T0;
    const counter = createQuotaCounter(countingStore({ now: () => now }, true).store, 60_000);
    await counter.take(TOKENS, 1, now);
    now += 4_000;
    await counter.take(TOKENS, 2, now);
    now += 4_000;
    // One token fits once T0's slice leaves (62 s after it began); two only when T0 + 4 s's does.
    expect(await counter.take(TOKENS, 1, now)).toEqual({ ok: false, resetAt: T0 + 62_000 });
    expect(await counter.take(TOKENS, 2, now)).toEqual({ ok: false, resetAt: T0 + 66_000 });
    // More than the quota never fits: the answer is a whole window from now's slice.
    expect(await counter.take(TOKENS, 4, now)).toEqual({ ok: false, resetAt: now + 62_000 });
  });

  it('forgets the cached slices of every counter past 10,000 counters, not at 10,000', async () => {
    const now = T0;
    const { store, calls } = countingStore({ now: () => now });
    const counter = createQuotaCounter(store, 60_000);
    const named = (i: number) => ({ ...TOKENS, name: `p/m${i}` });
    for (let i = 1; i <= 10_001; i++) await counter.take(named(i), 1, now);
    const reads = calls.read;
    await counter.take(named(1), 1, now);
    expect(calls.read).toBe(reads);
    await counter.take(named(10_002), 1, now);
    await counter.take(named(1), 1, now);
    expect(calls.read).toBe(reads + 2);
  });
});
