import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { accountRouteId } from '../../../lambda/core/breaker/route-cooling.js';
import { type RunningDynalite, startDynalite } from '../../helpers/dynalite.js';
import { type StoreFixture, storeFixtures } from './breaker-contract-harness.js';

const T0 = 1_700_000_000_000;
const ROUTE = accountRouteId('openai', 'gpt-4o-mini');
const KEEP_MS = 900_000;

let dynalite: RunningDynalite;
beforeAll(async () => {
  dynalite = await startDynalite();
});
afterAll(() => dynalite.stop());

describe.each(storeFixtures(() => dynalite))('account-route probe gate in the store: $name', ({ open }) => {
  let fixture: StoreFixture;
  afterEach(() => fixture.close());

  it('of two containers claiming the free gate at once exactly one wins, and the read shows who holds it until when', async () => {
    fixture = await open();
    const other = fixture.connect();
    const claims = await Promise.all([
      fixture.store.claimRouteProbe(ROUTE, { pipeline: 'p', now: T0, leaseMs: 30_000 }, KEEP_MS),
      other.claimRouteProbe(ROUTE, { pipeline: 'q', now: T0, leaseMs: 30_000 }, KEEP_MS),
    ]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    const probe = (await other.readRoutes([ROUTE], T0)).get(ROUTE)?.probe;
    expect(probe).toMatchObject({ probeUntil: T0 + 30_000, probeBy: claims[0] ? 'p' : 'q' });
    // Not cooling: the gate alone makes the route's state.
    expect((await other.readRoutes([ROUTE], T0)).get(ROUTE)?.coolUntil).toBeUndefined();
  });

  it('a failed probe shuts the gate until its next slot: a claim 1 ms before fails, one exactly at it wins', async () => {
    fixture = await open();
    const other = fixture.connect();
    await fixture.store.claimRouteProbe(ROUTE, { pipeline: 'p', now: T0, leaseMs: 30_000 }, KEEP_MS);
    const after = await fixture.store.settleRouteProbe(
      ROUTE,
      { pipeline: 'p', at: T0 + 40, ok: false, nextSlot: T0 + 10_040 },
      KEEP_MS,
    );
    expect(after).toMatchObject({ probeUntil: T0 + 10_040, probeBy: 'p' });
    expect(
      await other.claimRouteProbe(ROUTE, { pipeline: 'q', now: T0 + 10_039, leaseMs: 30_000 }, KEEP_MS),
    ).toBe(false);
    expect(
      await other.claimRouteProbe(ROUTE, { pipeline: 'q', now: T0 + 10_040, leaseMs: 30_000 }, KEEP_MS),
    ).toBe(true);
  });

  it('a success opens the gate and keeps when; another pipeline’s later shut is not overwritten by an earlier outcome', async () => {
    fixture = await open();
    await fixture.store.claimRouteProbe(ROUTE, { pipeline: 'p', now: T0, leaseMs: 30_000 }, KEEP_MS);
    const ok = await fixture.store.settleRouteProbe(
      ROUTE,
      { pipeline: 'p', at: T0 + 40, ok: true, nextSlot: T0 + 40 },
      KEEP_MS,
    );
    expect(ok).toMatchObject({ probeUntil: T0 + 40, probeOkAt: T0 + 40 });
    const shut = await fixture.store.settleRouteProbe(
      ROUTE,
      { pipeline: 'q', at: T0 + 50, ok: false, nextSlot: T0 + 10_050 },
      KEEP_MS,
    );
    expect(shut).toMatchObject({ probeUntil: T0 + 10_050, probeBy: 'q', probeOkAt: T0 + 40 });
    const late = await fixture.store.settleRouteProbe(
      ROUTE,
      { pipeline: 'r', at: T0 + 60, ok: true, nextSlot: T0 + 60 },
      KEEP_MS,
    );
    expect(late).toBeUndefined();
    expect((await fixture.connect().readRoutes([ROUTE], T0 + 70)).get(ROUTE)?.probe).toMatchObject({
      probeUntil: T0 + 10_050,
      probeBy: 'q',
    });
  });

  it('the gate and the cooling of one account route are read together and neither write touches the other', async () => {
    fixture = await open();
    await fixture.store.coolRoute(ROUTE, { at: T0, pipeline: 'p' }, { coolMs: 5_000, maxMs: 60_000 });
    await fixture.store.claimRouteProbe(ROUTE, { pipeline: 'q', now: T0, leaseMs: 30_000 }, KEEP_MS);
    const state = (await fixture.connect().readRoutes([ROUTE], T0 + 1)).get(ROUTE);
    expect(state).toMatchObject({ coolUntil: T0 + 5_000, cooledBy: 'p', probe: { probeUntil: T0 + 30_000 } });
    // The cooling has ended; the gate is still there.
    const later = (await fixture.connect().readRoutes([ROUTE], T0 + 6_000)).get(ROUTE);
    expect(later?.probe).toMatchObject({ probeBy: 'q' });
  });
});
