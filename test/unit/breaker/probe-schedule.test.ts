import { describe, expect, it } from 'vitest';
import { DEFAULT_BREAKER_POLICY } from '../../../lambda/core/breaker/breaker-policy.js';
import { applyOpening, applySample, EMPTY_SNAPSHOT } from '../../../lambda/core/breaker/breaker-state.js';
import {
  firstProbeDelay,
  nextProbeSlot,
  probeIntervalAt,
} from '../../../lambda/core/breaker/probe-schedule.js';
import { applyProbeClaim, routeAccess } from '../../../lambda/core/breaker/recovery.js';

const ramp = { ...DEFAULT_BREAKER_POLICY, recovery: 'ramp' as const };
const T0 = 1_700_000_000_000;

describe('probe schedule', () => {
  it.each([
    [0, 10_000],
    [59_999, 10_000],
    [60_000, 15_000],
    [299_999, 15_000],
    [300_000, 60_000],
    [899_999, 60_000],
    [900_000, 900_000],
  ])('an opening %i ms old probes again %i ms after a failed probe', (age, every) => {
    expect(probeIntervalAt(ramp, 'failure_rate', age)).toBe(every);
    expect(probeIntervalAt(ramp, 'consecutive_429', age)).toBe(every);
  });

  it('past the last step the interval is openMs, whatever openMs is', () => {
    expect(probeIntervalAt({ ...ramp, openMs: 120_000 }, 'failure_rate', 900_000)).toBe(120_000);
  });

  it('a quarantine probes only every openMs, from the opening on', () => {
    expect(firstProbeDelay(ramp, 'upstream_auth')).toBe(ramp.openMs);
    expect(firstProbeDelay(ramp, 'model_not_found')).toBe(ramp.openMs);
    expect(probeIntervalAt(ramp, 'upstream_auth', 10_000)).toBe(ramp.openMs);
    expect(firstProbeDelay(ramp, 'failure_rate')).toBe(10_000);
  });

  it('an empty schedule is the fixed slot of probeIntervalMs', () => {
    const fixed = { ...ramp, probeSchedule: [] };
    expect(probeIntervalAt(fixed, 'failure_rate', 0)).toBe(30_000);
    expect(probeIntervalAt(fixed, 'failure_rate', 10_000_000)).toBe(30_000);
    expect(probeIntervalAt(fixed, 'model_not_found', 0)).toBe(ramp.openMs);
  });

  it('after a success the next slot is at once; after a failure one step of the schedule at the age of the opening', () => {
    const opening = { openedAt: T0, openReason: 'failure_rate' as const };
    expect(nextProbeSlot(ramp, opening, T0 + 70_000, true)).toBe(T0 + 70_000);
    expect(nextProbeSlot(ramp, opening, T0 + 59_999, false)).toBe(T0 + 59_999 + 10_000);
    expect(nextProbeSlot(ramp, opening, T0 + 60_000, false)).toBe(T0 + 60_000 + 15_000);
    // An opening this process never read counts as new.
    expect(nextProbeSlot(ramp, {}, T0, false)).toBe(T0 + 10_000);
  });

  it('a claimed slot is leased for probeLeaseMs; the probe outcome sets the next slot while probing', () => {
    const open = applyOpening(EMPTY_SNAPSHOT, T0, 'failure_rate', ramp);
    expect(open.openUntil).toBe(T0 + 10_000);
    const claimed = applyProbeClaim(open, T0 + 5_000, ramp);
    expect(claimed.openUntil).toBe(T0 + 5_000 + ramp.probeLeaseMs);
    expect(routeAccess(claimed, T0 + 5_000 + ramp.probeLeaseMs - 1)).toEqual({ kind: 'blocked' });
    const failed = applySample(
      claimed,
      { at: T0 + 6_000, outcome: 'unavailable', probe: true, nextProbeAt: T0 + 11_000 },
      ramp,
    );
    expect(failed).toMatchObject({ openUntil: T0 + 11_000, probeStreak: 0 });
    const ok = applySample(
      claimed,
      { at: T0 + 6_000, outcome: 'ok', probe: true, nextProbeAt: T0 + 6_000 },
      ramp,
    );
    expect(routeAccess(ok, T0 + 6_000)).toEqual({ kind: 'probe', slot: T0 + 6_000 });
  });

  it('a probe outcome never moves openUntil of a breaker that no longer probes', () => {
    const closed = applySample(
      EMPTY_SNAPSHOT,
      { at: T0, outcome: 'ok', probe: true, nextProbeAt: T0 + 5_000 },
      ramp,
    );
    expect(closed.openUntil).toBeUndefined();
  });
});
