import { describe, expect, it } from 'vitest';
import { DEFAULT_BREAKER_POLICY } from '../../../lambda/core/breaker/breaker-policy.js';
import { canaryOutcome, createCanaryGuard } from '../../../lambda/core/gateway/canary-guard.js';

const policy = { ...DEFAULT_BREAKER_POLICY, minSamples: 5, failureRate: 0.4, windowMs: 60_000 };
const SINCE = '2026-12-01T18:00:00Z';
const T0 = Date.parse(SINCE);

/** Feeds outcomes one ms apart; returns the guard and whether the last sample aborted the canary. */
function fed(outcomes: boolean[]) {
  const guard = createCanaryGuard();
  let last = false;
  outcomes.forEach((failed, i) => {
    last = guard.record('p', SINCE, failed, T0 + i, policy);
  });
  return { guard, last };
}

describe('the canary guard', () => {
  it('aborts exactly when the failure share reaches failureRate over minSamples', () => {
    const { guard, last } = fed([true, false, true, false, false]);
    expect(last).toBe(true);
    expect(guard.aborted('p', SINCE)).toBe(true);
  });

  it('does not abort just below failureRate', () => {
    const { guard } = fed([true, false, false, false, false, false]);
    expect(guard.aborted('p', SINCE)).toBe(false);
  });

  it('waits for minSamples, however many fail', () => {
    const { guard } = fed([true, true, true, true]);
    expect(guard.aborted('p', SINCE)).toBe(false);
  });

  it('counts samples for windowMs and forgets them from then on', () => {
    const within = createCanaryGuard();
    const past = createCanaryGuard();
    for (let i = 0; i < 4; i += 1) {
      within.record('p', SINCE, true, T0, policy);
      past.record('p', SINCE, true, T0, policy);
    }
    expect(within.record('p', SINCE, true, T0 + policy.windowMs - 1, policy)).toBe(true);
    expect(past.record('p', SINCE, true, T0 + policy.windowMs, policy)).toBe(false);
  });

  it('reports the abort once, and a new canary of the pipeline starts afresh', () => {
    const { guard } = fed([true, true, true, true, true]);
    expect(guard.record('p', SINCE, true, T0 + 10, policy)).toBe(false);
    expect(guard.aborted('p', '2026-12-01T19:00:00Z')).toBe(false);
  });

  it.each([
    ['success', 'ok'],
    ['exhausted', 'failed'],
    ['deadline', 'failed'],
    ['partial', 'failed'],
    ['last_resort', 'failed'],
    ['stopped', undefined],
    ['cancelled', undefined],
  ] as const)('counts a request that ended %s as %s', (reason, outcome) => {
    expect(canaryOutcome(reason)).toBe(outcome);
  });
});
