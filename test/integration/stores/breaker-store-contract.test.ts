import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_BREAKER_POLICY } from '../../../lambda/core/breaker/breaker-policy.js';
import { createBreakers } from '../../../lambda/core/breaker/breakers.js';
import { accountRouteId } from '../../../lambda/core/breaker/route-cooling.js';
import { type RunningDynalite, startDynalite } from '../../helpers/dynalite.js';
import { createFakeClock, type FakeClock } from '../../helpers/fake-clock.js';
import { createRouterHarness, tiersOf } from '../../helpers/router-harness.js';
import { OK, RATE_LIMITED } from '../../helpers/scripted-model.js';
import { containerOn, POLICY, type StoreFixture, storeFixtures } from './breaker-contract-harness.js';

/** Account-route cooling: 5 s without a hint, at most a minute. */
const COOL = { coolMs: 5_000, maxMs: 60_000 };

let dynalite: RunningDynalite;
beforeAll(async () => {
  dynalite = await startDynalite();
});
afterAll(() => dynalite.stop());

describe.each(storeFixtures(() => dynalite))('breaker store contract: $name', ({ open }) => {
  let fixture: StoreFixture;
  let clock: FakeClock;
  beforeEach(async () => {
    fixture = await open();
    clock = createFakeClock();
  });
  afterEach(() => fixture.close());

  it('opens after two consecutive 429s, and only one report says so', async () => {
    const c = containerOn(fixture.store, clock);
    await c.record('a', 'rate_limited');
    expect((await c.state('a')).open).toBe(false);
    await c.record('a', 'rate_limited');
    expect(await c.state('a')).toMatchObject({
      open: true,
      reason: 'consecutive_429',
      openUntil: clock.now() + POLICY.openMs,
      streak: 0,
    });
    expect(c.opened).toEqual([
      expect.objectContaining({ model: 'a', reason: 'consecutive_429', alert: false }),
    ]);
    expect(c.storeErrors).toEqual([]);
  });

  it('resets the 429 streak on a success', async () => {
    const c = containerOn(fixture.store, clock);
    await c.record('a', 'rate_limited');
    await c.record('a', 'ok');
    await c.record('a', 'rate_limited');
    expect(await c.state('a')).toMatchObject({ open: false, streak: 1, attempts: 3, failures: 2 });
    expect(c.opened).toEqual([]);
  });

  it('opens when 5 samples hold 2 failures (40 % ≥ 30 %)', async () => {
    const c = containerOn(fixture.store, clock);
    for (const outcome of ['ok', 'ok', 'ok', 'unavailable', 'timeout'] as const) {
      await c.record('a', outcome);
      clock.advance(100);
    }
    expect(await c.state('a')).toMatchObject({
      open: true,
      reason: 'failure_rate',
      attempts: 5,
      failures: 2,
    });
    expect(c.opened).toHaveLength(1);
  });

  it('does not open on 4 samples, however many failed', async () => {
    const c = containerOn(fixture.store, clock);
    for (const outcome of ['ok', 'ok', 'unavailable', 'network'] as const) await c.record('a', outcome);
    expect(await c.state('a')).toMatchObject({ open: false, attempts: 4, failures: 2 });
  });

  it('forgets samples older than the window', async () => {
    const c = containerOn(fixture.store, clock);
    await c.record('a', 'unavailable');
    await c.record('a', 'unavailable');
    clock.advance(POLICY.windowMs + 1_000);
    for (const outcome of ['ok', 'ok', 'unavailable'] as const) await c.record('a', outcome);
    // With the old two the window would hold 5 samples and 3 failures, and open.
    expect(await c.state('a')).toMatchObject({ open: false, attempts: 3, failures: 1 });
  });

  it('closes after openMs, and the next 429 starts a new streak', async () => {
    const c = containerOn(fixture.store, clock);
    await c.record('a', 'rate_limited');
    await c.record('a', 'rate_limited');
    clock.advance(POLICY.openMs - 1);
    expect((await c.state('a')).open).toBe(true);
    clock.advance(1);
    expect((await c.state('a')).open).toBe(false);
    await c.record('a', 'rate_limited');
    expect(await c.state('a')).toMatchObject({ open: false, streak: 1 });
    await c.record('a', 'rate_limited');
    expect((await c.state('a')).open).toBe(true);
    expect(c.opened).toHaveLength(2);
  });

  it.each([
    ['upstream_auth', 401],
    ['model_not_found', 404],
  ] as const)('opens at once with an alert on %s (%i)', async (outcome, _status) => {
    const c = containerOn(fixture.store, clock);
    await c.record('a', outcome);
    expect(await c.state('a')).toMatchObject({ open: true, reason: outcome });
    expect(c.opened).toEqual([expect.objectContaining({ reason: outcome, alert: true })]);
  });

  it('cools on Retry-After, keeps the later end, and caps it at openMs', async () => {
    const c = containerOn(fixture.store, clock);
    const start = clock.now();
    await c.record('a', 'unavailable', { retryAfterMs: 30_000 });
    clock.advance(1_000);
    await c.record('a', 'unavailable', { retryAfterMs: 5_000 });
    expect(await c.state('a')).toMatchObject({ open: false, cooling: true, coolUntil: start + 30_000 });
    await c.record('b', 'unavailable', { retryAfterMs: 10 * 3_600_000 });
    expect((await c.state('b')).coolUntil).toBe(clock.now() + POLICY.openMs);
    clock.advance(29_000);
    expect((await c.state('a')).cooling).toBe(false);
  });

  it('keeps pipelines apart: the same model opens on one and stays closed on another', async () => {
    const c = containerOn(fixture.store, clock);
    await c.record('a', 'rate_limited', {}, 'long-output');
    await c.record('a', 'rate_limited', {}, 'long-output');
    await c.record('a', 'ok', {}, 'short-output');
    expect((await c.state('a', 'long-output')).open).toBe(true);
    expect(await c.state('a', 'short-output')).toMatchObject({ open: false, attempts: 1 });
    expect([...(await c.breakers.read('third')).keys()]).toEqual([]);
  });

  it('records nothing for caller errors, content-policy refusals, cancellations and missing keys', async () => {
    const c = containerOn(fixture.store, clock);
    for (const outcome of [
      'invalid_request',
      'content_policy',
      'cancelled',
      'context_length',
      'not_configured',
    ] as const) {
      await c.record('a', outcome);
    }
    expect(await c.state('a')).toMatchObject({ open: false, attempts: 0 });
  });

  it('with 20 concurrent writers in 20 containers: one opening per opening, and no lost update', async () => {
    const containers = Array.from({ length: 20 }, () => containerOn(fixture.connect(), clock));
    await Promise.all(containers.map((c) => c.record('a', 'rate_limited')));
    await Promise.all(containers.map((c) => c.record('b', 'unavailable')));
    const opened = containers.flatMap((c) => c.opened);
    expect(opened.filter((e) => e.model === 'a')).toEqual([
      expect.objectContaining({ reason: 'consecutive_429' }),
    ]);
    expect(opened.filter((e) => e.model === 'b')).toEqual([
      expect.objectContaining({ reason: 'failure_rate' }),
    ]);
    const reader = containerOn(fixture.connect(), clock);
    expect(await reader.state('a')).toMatchObject({ open: true, attempts: 20, failures: 20 });
    expect(await reader.state('b')).toMatchObject({ open: true, attempts: 20, failures: 20 });
    expect(containers.flatMap((c) => c.storeErrors)).toEqual([]);
  });

  it('ignores state whose time has passed: a day later nothing is open, cooling or counted', async () => {
    const c = containerOn(fixture.store, clock);
    await c.record('a', 'rate_limited', { retryAfterMs: 5_000 });
    await c.record('a', 'rate_limited');
    clock.advance(24 * 3_600_000);
    const later = containerOn(fixture.connect(), clock);
    expect(await later.state('a')).toMatchObject({ open: false, cooling: false, attempts: 0, streak: 0 });
    await later.record('a', 'rate_limited');
    expect(await later.state('a')).toMatchObject({ open: false, streak: 1, attempts: 1 });
  });

  it('an opening in one container sends the next request in another straight to tier 2', async () => {
    const store = fixture.store;
    const first = createRouterHarness({
      models: { a: [RATE_LIMITED], b: [OK] },
      tiers: tiersOf([['a'], ['b']]),
      store,
    });
    await first.route();
    await first.route();
    expect(first.opened).toEqual([expect.objectContaining({ model: 'a' })]);
    const second = createRouterHarness({
      models: { a: [OK], b: [OK] },
      tiers: tiersOf([['a'], ['b']]),
      store: fixture.connect(),
      breaker: DEFAULT_BREAKER_POLICY,
    });
    second.clock.set(first.clock.now());
    const result = await second.route();
    expect(result).toMatchObject({ ok: true, model: 'b', route: 'b:200' });
    expect(second.calls('a')).toBe(0);
  });

  it('a 429 cools the account route in one write; every container reads it; a later end wins', async () => {
    const route = accountRouteId('openai', 'gpt-4o-mini');
    const other = fixture.connect();
    expect((await other.readRoutes([route], clock.now())).size).toBe(0);
    const after = await fixture.store.coolRoute(
      route,
      { at: clock.now(), pipeline: 'p1', retryAfterMs: 2_000 },
      COOL,
    );
    expect(after.coolUntil).toBe(clock.now() + 2_000);
    // A shorter hint from another pipeline does not shorten it; a longer one extends it.
    await other.coolRoute(route, { at: clock.now(), pipeline: 'p2', retryAfterMs: 1_000 }, COOL);
    expect((await fixture.connect().readRoutes([route], clock.now())).get(route)).toMatchObject({
      coolUntil: clock.now() + 2_000,
      cooledBy: 'p1',
    });
    await other.coolRoute(route, { at: clock.now(), pipeline: 'p3' }, COOL);
    expect((await fixture.connect().readRoutes([route], clock.now())).get(route)).toMatchObject({
      coolUntil: clock.now() + COOL.coolMs,
      cooledBy: 'p3',
    });
    // Route items never show up as a pipeline's breakers.
    expect((await fixture.connect().readPipeline('p1', clock.now())).size).toBe(0);
    clock.advance(24 * 3_600_000);
    expect((await fixture.connect().readRoutes([route], clock.now())).size).toBe(0);
  });

  it('20 pipelines in 20 containers hit the same 429 at once: one route cools, until the latest end', async () => {
    const route = accountRouteId('openai', 'gpt-4o-mini');
    const containers = Array.from({ length: 20 }, () =>
      createBreakers({
        store: fixture.connect(),
        clock,
        policyFor: () => POLICY,
        routeCooling: { coolMs: COOL.coolMs, readCacheMs: 0, accountRouteOf: () => route },
      }),
    );
    await Promise.all(
      containers.map((c, i) =>
        c.record(`cron-${i}`, 'gpt-mini', {
          at: clock.now() + i,
          outcome: 'rate_limited',
          retryAfterMs: 2_000,
        }),
      ),
    );
    const states = await Promise.all(containers.map((c) => c.routeCooling(['gpt-mini', 'alias'])));
    for (const state of states) {
      expect(state.get('gpt-mini')).toEqual({
        coolUntil: clock.now() + 19 + 2_000,
        cooledAt: clock.now() + 19,
        cooledBy: 'cron-19',
      });
      expect(state.get('alias')?.coolUntil).toBe(clock.now() + 2_019);
    }
    // Each pipeline's own breaker heard its one 429: a streak of one, nothing opened.
    const reader = containerOn(fixture.connect(), clock);
    for (let i = 0; i < 20; i++) {
      expect(await reader.state('gpt-mini', `cron-${i}`)).toMatchObject({
        open: false,
        streak: 1,
        attempts: 1,
      });
    }
  });
});
