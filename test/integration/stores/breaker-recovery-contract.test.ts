import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BreakerPolicy } from '../../../lambda/core/breaker/breaker-policy.js';
import { type AttemptSample, windowCounts } from '../../../lambda/core/breaker/breaker-state.js';
import type { BreakerStore } from '../../../lambda/core/breaker/breaker-store.js';
import { breakerPhase, routeAccess } from '../../../lambda/core/breaker/recovery.js';
import { type RunningDynalite, startDynalite } from '../../helpers/dynalite.js';
import { createFakeClock, type FakeClock } from '../../helpers/fake-clock.js';
import { containerOn, POLICY, type StoreFixture, storeFixtures } from './breaker-contract-harness.js';

/** The contract's small window, on recovery `ramp` with the seed's shape. */
// The fixed slot (`probeSchedule: []`): these tests step from slot to slot; primary-recovery.test.ts runs the schedule.
const RAMP: BreakerPolicy = { ...POLICY, recovery: 'ramp', probeSchedule: [] };
const PROBE = RAMP.probeIntervalMs;
const STEP = RAMP.rampStepMs;

let dynalite: RunningDynalite;
beforeAll(async () => {
  dynalite = await startDynalite();
});
afterAll(() => dynalite.stop());

describe.each(storeFixtures(() => dynalite))('breaker recovery contract: $name', ({ open }) => {
  let fixture: StoreFixture;
  let clock: FakeClock;
  beforeEach(async () => {
    fixture = await open();
    clock = createFakeClock();
  });
  afterEach(() => fixture.close());

  const probe = (outcome: AttemptSample['outcome']): AttemptSample => ({
    at: clock.now(),
    outcome,
    probe: true,
  });
  const read = async (store: BreakerStore, model = 'a') =>
    (await store.readPipeline('p', clock.now())).get(model);

  /** Opens `a` through one container on recovery `ramp`; returns its `openedAt`. */
  async function openA(): Promise<number> {
    const c = containerOn(fixture.store, clock, RAMP);
    await c.record('a', 'rate_limited');
    await c.record('a', 'rate_limited');
    expect(c.opened).toEqual([expect.objectContaining({ openUntil: clock.now() + PROBE })]);
    return clock.now();
  }

  it('20 containers at a free probe slot: exactly one claims it, slot after slot', async () => {
    await openA();
    const containers = Array.from({ length: 20 }, () => fixture.connect());
    expect(
      await fixture.store.claimProbe('p', 'a', { now: clock.now(), slot: clock.now() + PROBE, policy: RAMP }),
    ).toBe(false);
    for (let slot = 1; slot <= 3; slot++) {
      clock.advance(PROBE);
      const seen = await Promise.all(containers.map((store) => read(store)));
      const slots = seen.map((s) => routeAccess(s, clock.now()));
      expect(new Set(slots.map((a) => (a.kind === 'probe' ? a.slot : a.kind)))).toEqual(
        new Set([clock.now()]),
      );
      const wins = await Promise.all(
        containers.map((store) =>
          store.claimProbe('p', 'a', { now: clock.now(), slot: clock.now(), policy: RAMP }),
        ),
      );
      expect(wins.filter(Boolean)).toHaveLength(1);
      const after = await read(fixture.connect());
      expect(after).toMatchObject({ openUntil: clock.now() + PROBE, probeAt: clock.now(), probing: true });
      expect(breakerPhase(after, clock.now())).toBe('probing');
    }
  });

  it('a probe moves the streak in its one write: a success adds one, a failure starts over', async () => {
    await openA();
    await fixture.store.record('p', 'a', probe('ok'), RAMP);
    await fixture.store.record('p', 'a', probe('ok'), RAMP);
    expect((await read(fixture.connect()))?.probeStreak).toBe(2);
    await fixture.store.record('p', 'a', probe('timeout'), RAMP);
    expect((await read(fixture.connect()))?.probeStreak).toBe(0);
    await fixture.store.record('p', 'a', { at: clock.now(), outcome: 'ok' }, RAMP);
    expect((await read(fixture.connect()))?.probeStreak).toBe(0);
  });

  it('20 containers start the ramp: exactly one wins, and every container applies the same share', async () => {
    const openedAt = await openA();
    for (let i = 0; i < 3; i++) await fixture.store.record('p', 'a', probe('ok'), RAMP);
    clock.advance(PROBE);
    const containers = Array.from({ length: 20 }, () => fixture.connect());
    expect(
      await fixture.store.startRamp('p', 'a', { now: clock.now(), openedAt: openedAt - 1, policy: RAMP }),
    ).toBe(false);
    const wins = await Promise.all(
      containers.map((store) => store.startRamp('p', 'a', { now: clock.now(), openedAt, policy: RAMP })),
    );
    expect(wins.filter(Boolean)).toHaveLength(1);
    const start = clock.now();
    for (const [offset, share] of [
      [0, 10],
      [STEP - 1, 10],
      [STEP, 25],
      [2 * STEP, 50],
      [4 * STEP - 1, 100],
    ] as const) {
      clock.set(start + offset);
      const seen = await Promise.all(containers.map((store) => read(store)));
      expect(new Set(seen.map((s) => JSON.stringify(routeAccess(s, clock.now()))))).toEqual(
        new Set([JSON.stringify({ kind: 'ramp', share })]),
      );
    }
    clock.set(start + 4 * STEP);
    expect(breakerPhase(await read(fixture.connect()), clock.now())).toBe('closed');
  });

  it('the ramp starts with an empty window, and a failure during it reopens it once for every container', async () => {
    await openA();
    const containers = Array.from({ length: 5 }, () => containerOn(fixture.connect(), clock, RAMP));
    const [first] = containers;
    if (!first) throw new Error('no container');
    clock.advance(PROBE);
    for (let i = 0; i < 3; i++) {
      // A probe success frees the slot at once: the next probe follows in the same instant.
      expect(await first.breakers.claimProbe('p', 'a', clock.now())).toBe(true);
      await first.record('a', 'ok', { probe: true });
    }
    const ramped = await read(fixture.connect());
    expect(breakerPhase(ramped, clock.now())).toBe('ramp');
    expect(ramped && windowCounts(ramped, clock.now(), RAMP)).toEqual({ attempts: 0, failures: 0 });
    clock.advance(1_000);
    await Promise.all(containers.map((c) => c.record('a', 'unavailable')));
    expect(containers.flatMap((c) => c.opened)).toEqual([
      expect.objectContaining({ reason: 'failure_rate', openUntil: clock.now() + PROBE }),
    ]);
    const reopened = await read(fixture.connect());
    expect(breakerPhase(reopened, clock.now())).toBe('open');
    expect(reopened).toMatchObject({ probing: true, probeStreak: 0 });
    expect(reopened?.rampStart).toBeUndefined();
    expect(containers.flatMap((c) => c.storeErrors)).toEqual([]);
  });
});
