import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BREAKER_POLICY } from '../../../lambda/core/breaker/breaker-policy.js';
import { breakerPhase } from '../../../lambda/core/breaker/recovery.js';
import { type RunningDynalite, startDynalite } from '../../helpers/dynalite.js';
import { createRouterHarness, tiersOf } from '../../helpers/router-harness.js';
import { OK, type Step, UNAVAILABLE } from '../../helpers/scripted-model.js';
import { type StoreFixture, storeFixtures } from './breaker-contract-harness.js';

/** The primary answers 503 for this long from the first request on, then is healthy. */
const OUTAGE_MS = 60_000;
/** One caller request per second, for this long. */
const RUN_MS = 150_000;

let dynalite: RunningDynalite;
beforeAll(async () => {
  dynalite = await startDynalite();
});
afterAll(() => dynalite.stop());

/**
 * `(A),(B)` on recovery `ramp`: A down `OUTAGE_MS` then healthy, B always answers; one request a
 * second. Returns when A answered a caller again, the probes that went into the outage, and the
 * phase of A's breaker a few seconds after its first answer.
 */
async function outageThenRecovery(
  fixture: StoreFixture,
  breaker: Record<string, unknown> = {},
  outageMs = OUTAGE_MS,
) {
  let recoveredAt = 0;
  const primary: Step = { byClock: (now) => (now < recoveredAt ? UNAVAILABLE : OK) };
  const h = createRouterHarness({
    models: { A: [primary], B: [OK] },
    tiers: tiersOf([['A'], ['B']]),
    breaker: { recovery: 'ramp', ...breaker },
    store: fixture.store,
  });
  const t0 = h.clock.now();
  recoveredAt = t0 + outageMs;
  let backOnPrimary: number | undefined;
  let phaseAfter: string | undefined;
  for (let t = 0; t < RUN_MS; t += 1_000) {
    h.clock.set(t0 + t);
    const result = await h.route();
    expect(result.ok).toBe(true);
    if (result.ok && result.model === 'A' && backOnPrimary === undefined) backOnPrimary = h.clock.now();
    if (backOnPrimary !== undefined && phaseAfter === undefined && h.clock.now() >= backOnPrimary + 5_000) {
      phaseAfter = breakerPhase((await h.breakers.read('p')).get('A'), h.clock.now());
    }
  }
  const probes = h.attemptLines().filter((l) => l.model === 'A' && l.recovery === 'probe');
  return {
    h,
    recoveredAt,
    backOnPrimary,
    phaseAfter,
    probesIntoOutage: probes.filter((l) => l.outcome !== 'ok').length,
  };
}

describe.each(storeFixtures(() => dynalite))('a primary down 60 s, then healthy: $name', ({ open }) => {
  let fixture: StoreFixture;
  afterEach(() => fixture.close());

  it('carries caller traffic again within 15 s of its recovery, and the ramp has started 5 s later', async () => {
    fixture = await open();
    const run = await outageThenRecovery(fixture);
    expect(run.h.opened).toEqual([expect.objectContaining({ model: 'A', reason: 'failure_rate' })]);
    expect(run.backOnPrimary).toBeDefined();
    expect((run.backOnPrimary ?? Number.POSITIVE_INFINITY) - run.recoveredAt).toBeLessThanOrEqual(15_000);
    expect(run.phaseAfter).toBe('ramp');
    // Opened at the fifth request (t = 4 s): probes at 14, 24, … 54 s, every 10 s while the outage is young.
    expect(run.probesIntoOutage).toBe(5);
  });

  it('probes one at a time: the three probe successes follow each other, one request each', async () => {
    fixture = await open();
    const run = await outageThenRecovery(fixture);
    const probes = run.h.attemptLines().filter((l) => l.recovery === 'probe');
    const ok = probes.filter((l) => l.outcome === 'ok');
    expect(ok).toHaveLength(DEFAULT_BREAKER_POLICY.probeSuccesses);
    const requests = run.h.requestLines();
    const at = (id: string) => requests.findIndex((r) => r.requestId === id);
    const indices = ok.map((l) => at(l.requestId));
    expect(indices).toEqual([indices[0], (indices[0] ?? 0) + 1, (indices[0] ?? 0) + 2]);
  });

  it('a fixed 30 s slot (`probeSchedule: []`) whose probe lands just before the recovery returns 29 s late; the schedule 14 s', async () => {
    fixture = await open();
    // Opened at 4 s; the outage ends at 65 s. Fixed slots at 34 and 64 s (both into the outage), then 94 s.
    const fixed = await outageThenRecovery(fixture, { probeSchedule: [] }, 65_000);
    expect(fixed.probesIntoOutage).toBe(2);
    expect(fixed.backOnPrimary).toBe(fixed.recoveredAt + 29_000);
    fixture.close();
    fixture = await open();
    // Probes every 10 s up to 54 s, then 64 s (the outage a minute old: every 15 s from there): 79 s.
    const scheduled = await outageThenRecovery(fixture, {}, 65_000);
    expect(scheduled.backOnPrimary).toBe(scheduled.recoveredAt + 14_000);
  });

  it('a quarantine (our credential refused) keeps the long open: its first probe slot is openMs away', async () => {
    fixture = await open();
    const h = createRouterHarness({
      models: { A: [{ fail: 'upstream_auth', status: 401 }, OK], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
      breaker: { recovery: 'ramp' },
      store: fixture.store,
    });
    await h.route();
    expect(h.opened).toEqual([
      expect.objectContaining({
        reason: 'upstream_auth',
        openUntil: h.clock.now() + DEFAULT_BREAKER_POLICY.openMs,
      }),
    ]);
    h.clock.advance(DEFAULT_BREAKER_POLICY.openMs - 1);
    await h.route();
    expect(h.calls('A')).toBe(1);
    h.clock.advance(1);
    const probed = await h.route();
    expect(probed.ok && probed.model).toBe('A');
    expect(h.attemptLines().at(-1)).toMatchObject({ model: 'A', recovery: 'probe' });
  });
});
