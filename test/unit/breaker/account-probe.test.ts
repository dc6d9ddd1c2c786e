import { describe, expect, it } from 'vitest';
import {
  applyGateClaim,
  applyGateOutcome,
  canClaimGate,
  canSettleGate,
  probeGate,
} from '../../../lambda/core/breaker/account-probe.js';

const T0 = 1_700_000_000_000;

describe('account-route probe gate (pure)', () => {
  it('is free for a route never probed, and for a breaker opened after no success', () => {
    expect(probeGate(undefined, T0, T0)).toBe('free');
    expect(probeGate({}, T0, T0)).toBe('free');
    expect(canClaimGate(undefined, T0)).toBe(true);
  });

  it('a claim holds it for leaseMs: held at the lease end minus 1 ms, free exactly at the lease end', () => {
    const claimed = applyGateClaim(undefined, { pipeline: 'p', now: T0, leaseMs: 30_000 });
    expect(claimed).toEqual({ probeUntil: T0 + 30_000, probeBy: 'p' });
    expect(probeGate(claimed, T0 - 5_000, T0 + 29_999)).toBe('held');
    expect(canClaimGate(claimed, T0 + 29_999)).toBe(false);
    expect(probeGate(claimed, T0 - 5_000, T0 + 30_000)).toBe('free');
    expect(canClaimGate(claimed, T0 + 30_000)).toBe(true);
  });

  it('a failed probe shuts it until the prober’s next slot, exactly', () => {
    const claimed = applyGateClaim(undefined, { pipeline: 'p', now: T0, leaseMs: 30_000 });
    const failed = applyGateOutcome(claimed, {
      pipeline: 'p',
      at: T0 + 40,
      ok: false,
      nextSlot: T0 + 10_040,
    });
    expect(failed).toEqual({ probeUntil: T0 + 10_040, probeBy: 'p' });
    expect(probeGate(failed, T0 - 5_000, T0 + 10_039)).toBe('held');
    expect(probeGate(failed, T0 - 5_000, T0 + 10_040)).toBe('free');
  });

  it('a success clears it for every breaker opened up to that success, not for one opened after', () => {
    const claimed = applyGateClaim(undefined, { pipeline: 'p', now: T0, leaseMs: 30_000 });
    const ok = applyGateOutcome(claimed, { pipeline: 'p', at: T0 + 40, ok: true, nextSlot: T0 + 40 });
    expect(ok).toEqual({ probeUntil: T0 + 40, probeBy: 'p', probeOkAt: T0 + 40 });
    expect(probeGate(ok, T0 + 40, T0 + 40)).toBe('clear');
    expect(probeGate(ok, T0 - 60_000, T0 + 50)).toBe('clear');
    expect(probeGate(ok, T0 + 41, T0 + 50)).toBe('free');
  });

  it('a claim after a success (a breaker opened later) shuts the clear state again', () => {
    const ok = { probeUntil: T0, probeBy: 'p', probeOkAt: T0 };
    const claimed = applyGateClaim(ok, { pipeline: 'q', now: T0 + 5_000, leaseMs: 30_000 });
    expect(probeGate(claimed, T0 - 1, T0 + 5_001)).toBe('held');
    expect(probeGate(claimed, T0 - 1, T0 + 35_000)).toBe('free');
  });

  it('an outcome is written over its own pipeline’s gate, over an earlier or equal shut, never over a later one of another pipeline', () => {
    const shut = { probeUntil: T0 + 10_000, probeBy: 'q' };
    const mine = { pipeline: 'q', at: T0 + 1, ok: true, nextSlot: T0 + 1 };
    expect(canSettleGate(shut, mine)).toBe(true);
    expect(canSettleGate(undefined, { ...mine, pipeline: 'p' })).toBe(true);
    expect(canSettleGate(shut, { pipeline: 'p', at: T0, ok: false, nextSlot: T0 + 10_000 })).toBe(true);
    expect(canSettleGate(shut, { pipeline: 'p', at: T0, ok: false, nextSlot: T0 + 9_999 })).toBe(false);
    expect(canSettleGate(shut, { pipeline: 'p', at: T0 + 9_999, ok: true, nextSlot: T0 + 9_999 })).toBe(
      false,
    );
  });
});
