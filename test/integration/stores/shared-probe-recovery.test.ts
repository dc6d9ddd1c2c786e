import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { breakerPhase } from '../../../lambda/core/breaker/recovery.js';
import { accountRouteId } from '../../../lambda/core/breaker/route-cooling.js';
import { type RunningDynalite, startDynalite } from '../../helpers/dynalite.js';
import { createRouterHarness, tiersOf } from '../../helpers/router-harness.js';
import { OK, type Step, UNAVAILABLE } from '../../helpers/scripted-model.js';
import { type StoreFixture, storeFixtures } from './breaker-contract-harness.js';

/** The primary answers 503 for this long from the first request on, then is healthy. */
const OUTAGE_MS = 60_000;
/** One caller request per second and pipeline, for this long. */
const RUN_MS = 150_000;
/** The first step of the default probe schedule. */
const EVERY_MS = 10_000;

let dynalite: RunningDynalite;
beforeAll(async () => {
  dynalite = await startDynalite();
});
afterAll(() => dynalite.stop());

/**
 * Pipelines `p` and `q`, each in its own container (its own breakers and, for DynamoDB, its own
 * client on the same table), both on `(A),(B)` with recovery `ramp`, A reaching the one account
 * route `acct/primary`: A down `OUTAGE_MS` then healthy. `p` sends a request at every full second,
 * `q` half a second later.
 */
async function twoPipelinesOneOutage(fixture: StoreFixture) {
  let recoveredAt = 0;
  const primary: Step = { byClock: (now) => (now < recoveredAt ? UNAVAILABLE : OK) };
  const container = (store: StoreFixture['store']) =>
    createRouterHarness({
      models: { A: [primary], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
      breaker: { recovery: 'ramp' },
      store,
      routeCooling: {
        coolMs: 5_000,
        readCacheMs: 1_000,
        accountRouteOf: (key) => accountRouteId('acct', key === 'A' ? 'primary' : key),
      },
    });
  const pipelines = [
    { name: 'p', h: container(fixture.store), offset: 0 },
    { name: 'q', h: container(fixture.connect()), offset: 500 },
  ];
  const t0 = pipelines[0]?.h.clock.now() ?? 0;
  recoveredAt = t0 + OUTAGE_MS;
  const probes: { pipeline: string; at: number; ok: boolean }[] = [];
  const back = new Map<string, number>();
  const phaseAfter = new Map<string, string>();
  for (let t = 0; t < RUN_MS; t += 1_000) {
    for (const { name, h, offset } of pipelines) {
      h.clock.set(t0 + t + offset);
      const seen = h.attemptLines().length;
      const result = await h.route({ pipeline: name });
      expect(result.ok).toBe(true);
      for (const line of h.attemptLines().slice(seen)) {
        if (line.model === 'A' && line.recovery === 'probe')
          probes.push({ pipeline: name, at: h.clock.now() - t0, ok: line.outcome === 'ok' });
      }
      if (result.ok && result.model === 'A' && !back.has(name)) back.set(name, h.clock.now() - recoveredAt);
      const since = back.get(name);
      if (since !== undefined && !phaseAfter.has(name) && h.clock.now() - recoveredAt >= since + 5_000) {
        phaseAfter.set(name, breakerPhase((await h.breakers.read(name)).get('A'), h.clock.now()));
      }
    }
  }
  return { pipelines, probes, back, phaseAfter };
}

describe.each(storeFixtures(() => dynalite))(
  'two pipelines share a primary that is down 60 s: $name',
  ({ open }) => {
    let fixture: StoreFixture;
    afterEach(() => fixture.close());

    it('one probe per slot across both pipelines goes into the outage, and both carry traffic again within 15 s of the recovery', async () => {
      fixture = await open();
      const run = await twoPipelinesOneOutage(fixture);
      for (const { h } of run.pipelines)
        expect(h.opened).toEqual([expect.objectContaining({ model: 'A', reason: 'failure_rate' })]);
      const intoOutage = run.probes.filter((p) => !p.ok);
      // Both opened at their fifth request (4 s, 4.5 s): slots at 14, 24, … 54 s, each taken by one
      // pipeline; a pipeline probing on its own would have sent as many again.
      expect(intoOutage.map((p) => p.at)).toEqual([14_000, 24_000, 34_000, 44_000, 54_000]);
      for (const [i, p] of intoOutage.entries()) {
        const previous = intoOutage[i - 1];
        if (previous) expect(p.at - previous.at).toBeGreaterThanOrEqual(EVERY_MS);
      }
      expect(run.back.get('p')).toBeLessThanOrEqual(15_000);
      expect(run.back.get('q')).toBeLessThanOrEqual(15_000);
      expect(run.phaseAfter.get('p')).toBe('ramp');
      expect(run.phaseAfter.get('q')).toBe('ramp');
    });

    it('the first probe success frees the other pipeline at once: its probes follow without a slot of its own', async () => {
      fixture = await open();
      const run = await twoPipelinesOneOutage(fixture);
      const firstOk = run.probes.find((p) => p.ok);
      expect(firstOk?.at).toBe(64_000);
      const other = run.probes.find((p) => p.ok && p.pipeline !== firstOk?.pipeline);
      // The other pipeline's next request (half a second later) is already its probe.
      expect(other?.at).toBe(64_500);
    });
  },
);
