import { describe, expect, it } from 'vitest';
import { DEFAULT_BREAKER_POLICY } from '../../../lambda/core/breaker/breaker-policy.js';
import { breakerPhase } from '../../../lambda/core/breaker/recovery.js';
import { createRouterHarness, tiersOf } from '../../helpers/router-harness.js';
import { OK, RATE_LIMITED, type Step, UNAVAILABLE } from '../../helpers/scripted-model.js';

const PROBE = DEFAULT_BREAKER_POLICY.probeIntervalMs;
const STEP = DEFAULT_BREAKER_POLICY.rampStepMs;

/** `(A),(B)` on recovery `ramp`; A answers `a` (two 429s open it first). */
function rampHarness(a: Step[], seed = 42) {
  return createRouterHarness({
    models: { A: [RATE_LIMITED, RATE_LIMITED, ...a], B: [OK] },
    tiers: tiersOf([['A'], ['B']]),
    breaker: { recovery: 'ramp', probeSchedule: [] },
    seed,
  });
}

type Harness = ReturnType<typeof rampHarness>;

async function openA(h: Harness) {
  await h.route();
  await h.route();
  expect(h.opened).toEqual([expect.objectContaining({ model: 'A', reason: 'consecutive_429' })]);
}

/** Waits for each probe slot and sends one request into it, `count` times. */
async function probe(h: Harness, count: number) {
  for (let i = 0; i < count; i++) {
    h.clock.advance(PROBE);
    await h.route();
  }
}

/** Share (0–1) of `n` requests whose first attempt went to A. */
async function shareOfA(h: Harness, n: number): Promise<number> {
  const before = h.calls('A');
  for (let i = 0; i < n; i++) await h.route();
  return (h.calls('A') - before) / n;
}

describe('router with recovery ramp', () => {
  it('sends exactly one request per probe slot while the probes fail, marked as a probe', async () => {
    const h = rampHarness([UNAVAILABLE, OK]);
    await openA(h);
    for (let i = 0; i < 5; i++) await h.route();
    expect(h.calls('A')).toBe(2);
    h.clock.advance(PROBE - 1);
    await h.route();
    expect(h.calls('A')).toBe(2);
    h.clock.advance(1);
    const probed = await h.route();
    expect(probed.ok && probed.model).toBe('B');
    for (let i = 0; i < 5; i++) await h.route();
    expect(h.calls('A')).toBe(3);
    const probeLine = h.attemptLines().find((l) => l.recovery === 'probe');
    expect(probeLine).toMatchObject({ model: 'A', action: 'first', outcome: 'unavailable' });
    expect(h.attemptLines().filter((l) => l.recovery !== undefined)).toHaveLength(1);
  });

  it('after a probe success the next probe follows at once, one request each, until the ramp starts', async () => {
    const h = rampHarness([OK]);
    await openA(h);
    h.clock.advance(PROBE);
    for (let i = 0; i < 3; i++) {
      const probed = await h.route();
      expect(probed.ok && probed.model).toBe('A');
    }
    expect(h.attemptLines().filter((l) => l.recovery === 'probe')).toHaveLength(3);
    expect(breakerPhase((await h.breakers.read('p')).get('A'), h.clock.now())).toBe('ramp');
  });

  it('of 20 requests arriving together at a free slot, exactly one probes', async () => {
    const h = rampHarness([OK]);
    await openA(h);
    h.clock.advance(PROBE);
    await Promise.all([...Array(20)].map(() => h.route()));
    expect(h.calls('A')).toBe(3);
    expect(h.attemptLines().filter((l) => l.recovery === 'probe')).toHaveLength(1);
  });

  it('a failed probe falls back within the request, and the next slot probes again', async () => {
    const h = rampHarness([UNAVAILABLE, OK]);
    await openA(h);
    h.clock.advance(PROBE);
    const failed = await h.route();
    expect(failed.ok && failed.model).toBe('B');
    expect(failed.attempts.map((a) => [a.model, a.recovery])).toEqual([
      ['A', 'probe'],
      ['B', undefined],
    ]);
    expect(h.opened).toHaveLength(1);
    await probe(h, 1);
    expect(h.calls('A')).toBe(4);
  });

  it('returns traffic step by step: 10 %, 25 %, 50 %, 100 % (±3 points over 1,000 seeded requests), then closed', async () => {
    const h = rampHarness([OK]);
    await openA(h);
    await probe(h, 3);
    const shares: number[] = [];
    for (const step of [0, 1, 2, 3]) {
      h.clock.set(h.clock.now() + (step === 0 ? 0 : STEP));
      shares.push(await shareOfA(h, 1_000));
    }
    for (const [i, expected] of [0.1, 0.25, 0.5, 1].entries()) {
      expect(Math.abs((shares[i] ?? 0) - expected)).toBeLessThanOrEqual(0.03);
    }
    const admitted = h.attemptLines().filter((l) => l.recovery === 'ramp');
    expect(new Set(admitted.map((l) => l.rampShare))).toEqual(new Set([10, 25, 50, 100]));
    h.clock.advance(STEP);
    expect(await shareOfA(h, 100)).toBe(1);
    expect(h.attemptLines().at(-1)?.recovery).toBeUndefined();
  });

  it('a route that fails during the ramp opens again and probes again', async () => {
    const h = rampHarness([OK, OK, OK, UNAVAILABLE]);
    await openA(h);
    await probe(h, 3);
    // At 10 % one of the first hundred requests is admitted to A; it fails and falls back to B.
    for (let i = 0; i < 100 && h.calls('A') === 5; i++) await h.route();
    const admitted = h.requestLines().at(-1);
    expect(admitted?.route).toBe('A:503,B:200');
    expect(h.opened).toHaveLength(2);
    expect(h.opened[1]).toMatchObject({
      model: 'A',
      reason: 'failure_rate',
      openUntil: h.clock.now() + PROBE,
    });
    const snapshot = (await h.breakers.read('p')).get('A');
    expect(breakerPhase(snapshot, h.clock.now())).toBe('open');
    const calls = h.calls('A');
    for (let i = 0; i < 50; i++) await h.route();
    expect(h.calls('A')).toBe(calls);
  });

  it('recovery window (the default) sends nothing to an open route until openMs has passed', async () => {
    const h = createRouterHarness({
      models: { A: [RATE_LIMITED, RATE_LIMITED, OK], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
    });
    await openA(h);
    h.clock.advance(PROBE);
    await h.route();
    expect(h.calls('A')).toBe(2);
    h.clock.advance(DEFAULT_BREAKER_POLICY.openMs);
    for (let i = 0; i < 10; i++) await h.route();
    expect(h.calls('A')).toBe(12);
    expect(h.attemptLines().every((l) => l.recovery === undefined)).toBe(true);
  });
});
