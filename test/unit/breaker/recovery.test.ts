import { describe, expect, it } from 'vitest';
import { type BreakerPolicy, DEFAULT_BREAKER_POLICY } from '../../../lambda/core/breaker/breaker-policy.js';
import {
  type AttemptSample,
  applyOpening,
  applySample,
  type BreakerSnapshot,
  EMPTY_SNAPSHOT,
} from '../../../lambda/core/breaker/breaker-state.js';
import {
  type BreakerOpened,
  type BreakerRecovering,
  createBreakers,
} from '../../../lambda/core/breaker/breakers.js';
import {
  applyProbeClaim,
  applyRampStart,
  breakerPhase,
  canClaimProbe,
  rampEnd,
  rampReopenReason,
  rampShare,
  readyToRamp,
  routeAccess,
} from '../../../lambda/core/breaker/recovery.js';
import { createMemoryBreakerStore } from '../../../lambda/stores/memory-breaker-store.js';
import { createFakeClock } from '../../helpers/fake-clock.js';

// The fixed slot (`probeSchedule: []`): these tests step from slot to slot; the schedule has its own tests.
const ramp: BreakerPolicy = { ...DEFAULT_BREAKER_POLICY, recovery: 'ramp', probeSchedule: [] };
const T0 = 1_700_000_000_000;
const PROBE = ramp.probeIntervalMs;
const STEP = ramp.rampStepMs;

const opened = (at = T0) => applyOpening(EMPTY_SNAPSHOT, at, 'consecutive_429', ramp);
const sample = (at: number, outcome: AttemptSample['outcome'], probe = false): AttemptSample => ({
  at,
  outcome,
  ...(probe ? { probe: true } : {}),
});
const play = (from: BreakerSnapshot, samples: AttemptSample[]) =>
  samples.reduce((state, s) => applySample(state, s, ramp), from);

/** A breaker whose ramp started at `at`. */
const ramping = (at = T0) => applyRampStart({ ...opened(at - PROBE), probeStreak: 3 }, at, ramp);

describe('breaker recovery: pure transitions', () => {
  it('a ramp opening is open until its first probe slot, probeIntervalMs later', () => {
    const s = opened();
    expect(s).toMatchObject({ openUntil: T0 + PROBE, probing: true, probeStreak: 0 });
    expect(breakerPhase(s, T0 + PROBE - 1)).toBe('open');
    expect(routeAccess(s, T0 + PROBE - 1)).toEqual({ kind: 'blocked' });
    expect(breakerPhase(s, T0 + PROBE)).toBe('probing');
    expect(routeAccess(s, T0 + PROBE)).toEqual({ kind: 'probe', slot: T0 + PROBE });
  });

  it('a window opening stays open openMs and never probes', () => {
    const s = applyOpening(EMPTY_SNAPSHOT, T0, 'failure_rate', DEFAULT_BREAKER_POLICY);
    expect(s.probing).toBeUndefined();
    expect(routeAccess(s, T0 + DEFAULT_BREAKER_POLICY.openMs - 1)).toEqual({ kind: 'blocked' });
    expect(routeAccess(s, T0 + DEFAULT_BREAKER_POLICY.openMs)).toEqual({ kind: 'closed' });
  });

  it('a claimed slot moves the next one probeIntervalMs on, and the old slot cannot be claimed again', () => {
    const slot = T0 + PROBE;
    const s = opened();
    expect(canClaimProbe(s, slot, slot - 1)).toBe(false);
    expect(canClaimProbe(s, slot, slot)).toBe(true);
    const claimed = applyProbeClaim(s, slot + 5, ramp);
    expect(claimed).toMatchObject({ openUntil: slot + 5 + PROBE, probeAt: slot + 5 });
    expect(canClaimProbe(claimed, slot, slot + 5)).toBe(false);
    expect(routeAccess(claimed, slot + 5)).toEqual({ kind: 'blocked' });
    expect(breakerPhase(claimed, slot + 5)).toBe('probing');
  });

  it('needs probeSuccesses probe successes in a row; a failed probe starts the count over', () => {
    const at = T0 + PROBE;
    const two = play(opened(), [sample(at, 'ok', true), sample(at, 'ok', true)]);
    expect(readyToRamp(two, ramp)).toBe(false);
    expect(readyToRamp(play(two, [sample(at, 'ok', true)]), ramp)).toBe(true);
    const reset = play(two, [sample(at, 'unavailable', true)]);
    expect(reset.probeStreak).toBe(0);
    expect(readyToRamp(play(reset, [sample(at, 'ok', true), sample(at, 'ok', true)]), ramp)).toBe(false);
    // A success that was no probe (a fail-open attempt) does not count.
    expect(play(two, [sample(at, 'ok')]).probeStreak).toBe(2);
  });

  it('the ramp holds each step rampStepMs and closes after the last', () => {
    const s = ramping();
    expect(s).toMatchObject({ rampStart: T0, rampStepMs: STEP, rampSteps: [10, 25, 50, 100], buckets: {} });
    expect(s.openUntil).toBeUndefined();
    expect(s.probing).toBeUndefined();
    expect(rampEnd(s)).toBe(T0 + 4 * STEP);
    expect([0, STEP - 1, STEP, 2 * STEP, 3 * STEP, 4 * STEP - 1].map((t) => rampShare(s, T0 + t))).toEqual([
      10, 10, 25, 50, 100, 100,
    ]);
    expect(breakerPhase(s, T0 + 4 * STEP - 1)).toBe('ramp');
    // A container whose clock is a second behind sees the first step, not a closed breaker.
    expect(rampShare(s, T0 - 1_000)).toBe(10);
    expect(routeAccess(s, T0 + STEP)).toEqual({ kind: 'ramp', share: 25 });
    expect(breakerPhase(s, T0 + 4 * STEP)).toBe('closed');
    expect(routeAccess(s, T0 + 4 * STEP)).toEqual({ kind: 'closed' });
  });

  it('the share comes from the stored plan, not the policy of whoever reads it', () => {
    const s = ramping();
    const other = { ...ramp, rampSteps: [50, 100], rampStepMs: 1_000 };
    expect(rampShare(applySample(s, sample(T0 + 1, 'ok'), other), T0 + 2_000)).toBe(10);
  });

  it('a failure during the ramp reopens once the ramp’s failure rate reaches failureRate (30 %)', () => {
    const at = T0 + 10;
    const first = play(ramping(), [sample(at, 'unavailable')]);
    expect(rampReopenReason(first, sample(at, 'unavailable'), ramp, at)).toBe('failure_rate');
    const base = play(
      ramping(),
      [...Array(7)].map(() => sample(at, 'ok')),
    );
    const two = play(base, [sample(at, 'unavailable'), sample(at, 'timeout')]);
    // 2 of 9 (22 %): stays
    expect(rampReopenReason(two, sample(at, 'timeout'), ramp, at)).toBeUndefined();
    const three = play(two, [sample(at, 'network')]);
    // 3 of 10: exactly 30 %, reopens
    expect(rampReopenReason(three, sample(at, 'network'), ramp, at)).toBe('failure_rate');
    expect(rampReopenReason(play(base, [sample(at, 'ok')]), sample(at, 'ok'), ramp, at)).toBeUndefined();
  });

  it('during the ramp two 429s in a row reopen it, and a refused key at once', () => {
    const at = T0 + 10;
    const base = play(
      ramping(),
      [...Array(5)].map(() => sample(at, 'ok')),
    );
    const streak = play(base, [sample(at, 'rate_limited'), sample(at, 'rate_limited')]);
    expect(rampReopenReason(streak, sample(at, 'rate_limited'), ramp, at)).toBe('consecutive_429');
    const auth = play(base, [sample(at, 'upstream_auth')]);
    expect(rampReopenReason(auth, sample(at, 'upstream_auth'), ramp, at)).toBe('upstream_auth');
    expect(
      rampReopenReason(play(base, [sample(at, 'invalid_request')]), sample(at, 'invalid_request'), ramp, at),
    ).toBeUndefined();
  });

  it('an opening during the ramp ends it and probes again', () => {
    const s = applyOpening(ramping(), T0 + 10, 'failure_rate', ramp);
    expect(s.rampStart).toBeUndefined();
    expect(s.rampSteps).toBeUndefined();
    expect(s).toMatchObject({ probing: true, probeStreak: 0, openUntil: T0 + 10 + PROBE });
    expect(breakerPhase(s, T0 + 10)).toBe('open');
  });
});

/** One container's breakers over a memory store, on recovery `ramp`, with what they reported. */
function breakersOnRamp() {
  const clock = createFakeClock(T0);
  const store = createMemoryBreakerStore();
  const openings: BreakerOpened[] = [];
  const steps: BreakerRecovering[] = [];
  const breakers = createBreakers({
    store,
    clock,
    policyFor: () => ramp,
    events: { onOpened: (e) => openings.push(e), onRecovery: (e) => steps.push(e) },
  });
  const record = (outcome: AttemptSample['outcome'], probe = false) =>
    breakers.record('p', 'a', { at: clock.now(), outcome, ...(probe ? { probe: true } : {}) });
  const state = async () => (await breakers.read('p')).get('a');
  return { clock, breakers, openings, steps, record, state };
}

describe('breaker recovery: createBreakers with the fake clock', () => {
  it('opens, probes once per slot, ramps after three probe successes, and closes after the ramp', async () => {
    const b = breakersOnRamp();
    await b.record('rate_limited');
    await b.record('rate_limited');
    expect(b.openings).toEqual([
      expect.objectContaining({ reason: 'consecutive_429', openUntil: T0 + PROBE }),
    ]);
    for (let probe = 1; probe <= 3; probe++) {
      b.clock.advance(PROBE);
      const slot = (await b.state())?.openUntil ?? 0;
      expect(await b.breakers.claimProbe('p', 'a', slot)).toBe(true);
      expect(await b.breakers.claimProbe('p', 'a', slot)).toBe(false);
      await b.record('ok', true);
    }
    expect(b.steps.map((s) => s.phase)).toEqual(['probing', 'probing', 'probing', 'ramp']);
    const now = b.clock.now();
    expect(b.steps.at(-1)).toEqual({
      pipeline: 'p',
      model: 'a',
      phase: 'ramp',
      at: now,
      until: now + 4 * STEP,
    });
    expect(breakerPhase(await b.state(), now)).toBe('ramp');
    b.clock.advance(4 * STEP);
    expect(breakerPhase(await b.state(), b.clock.now())).toBe('closed');
    expect(b.openings).toHaveLength(1);
  });

  it('a failed probe keeps it open without a new opening report; the next slot still comes', async () => {
    const b = breakersOnRamp();
    await b.record('rate_limited');
    await b.record('rate_limited');
    b.clock.advance(PROBE);
    expect(await b.breakers.claimProbe('p', 'a', T0 + PROBE)).toBe(true);
    await b.record('ok', true);
    await b.record('unavailable', true);
    expect(await b.state()).toMatchObject({ probeStreak: 0, openUntil: T0 + 2 * PROBE });
    expect(b.openings).toHaveLength(1);
    b.clock.advance(PROBE);
    expect(routeAccess(await b.state(), b.clock.now())).toEqual({ kind: 'probe', slot: T0 + 2 * PROBE });
  });

  it('a failure during the ramp reopens it, reported once, and it probes again', async () => {
    const b = breakersOnRamp();
    await b.record('rate_limited');
    await b.record('rate_limited');
    for (let probe = 1; probe <= 3; probe++) {
      b.clock.advance(PROBE);
      await b.breakers.claimProbe('p', 'a', (await b.state())?.openUntil ?? 0);
      await b.record('ok', true);
    }
    for (let i = 0; i < 4; i++) await b.record('ok');
    await b.record('unavailable'); // 1 of 5: 20 %
    expect(b.openings).toHaveLength(1);
    await b.record('timeout'); // 2 of 6: 33 %
    expect(b.openings).toHaveLength(2);
    expect(b.openings[1]).toMatchObject({ reason: 'failure_rate', openUntil: b.clock.now() + PROBE });
    expect(breakerPhase(await b.state(), b.clock.now())).toBe('open');
  });

  it('a fail-open attempt while probes are due neither opens it again nor counts as a probe', async () => {
    const b = breakersOnRamp();
    await b.record('rate_limited');
    await b.record('rate_limited');
    b.clock.advance(PROBE);
    for (let i = 0; i < 6; i++) await b.record('rate_limited');
    expect(b.openings).toHaveLength(1);
    expect(routeAccess(await b.state(), b.clock.now())).toEqual({ kind: 'probe', slot: T0 + PROBE });
  });
});
