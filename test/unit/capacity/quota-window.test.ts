import { describe, expect, it } from 'vitest';
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
