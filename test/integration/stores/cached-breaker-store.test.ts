import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakerSnapshot } from '../../../lambda/core/breaker/breaker-state.js';
import type { BreakerStore } from '../../../lambda/core/breaker/breaker-store.js';
import { CachedBreakerStore } from '../../../lambda/stores/cached-breaker-store.js';
import { createMemoryBreakerStore } from '../../../lambda/stores/memory-breaker-store.js';
import { openBreakerTable, type RunningDynalite, startDynalite } from '../../helpers/dynalite.js';
import { createFakeClock } from '../../helpers/fake-clock.js';
import { containerOn, POLICY } from './breaker-contract-harness.js';

/** A store that counts reads and can hold the next read until the test releases it. */
function countingStore(inner: BreakerStore = createMemoryBreakerStore()) {
  let reads = 0;
  let gate: Promise<void> | undefined;
  const store: BreakerStore = {
    async readPipeline(pipeline, now) {
      reads += 1;
      const answer = await inner.readPipeline(pipeline, now);
      await gate;
      return answer;
    },
    record: (...args) => inner.record(...args),
    tryOpen: (...args) => inner.tryOpen(...args),
    readRoutes: (...args) => inner.readRoutes(...args),
    coolRoute: (...args) => inner.coolRoute(...args),
    claimProbe: (...args) => inner.claimProbe(...args),
    startRamp: (...args) => inner.startRamp(...args),
    claimRouteProbe: (...args) => inner.claimRouteProbe(...args),
    settleRouteProbe: (...args) => inner.settleRouteProbe(...args),
  };
  return {
    store,
    reads: () => reads,
    /** Holds reads that start from now on until the returned function is called. */
    hold() {
      let release = () => {};
      gate = new Promise((resolve) => {
        release = resolve;
      });
      return () => {
        gate = undefined;
        release();
      };
    },
  };
}

describe('read cache', () => {
  it('serves reads from the cache for its lifetime, then reads again', async () => {
    const inner = countingStore();
    const cached = new CachedBreakerStore(inner.store, { lifetimeMs: 1_000 });
    for (const at of [0, 500, 999]) await cached.readPipeline('p', 10_000 + at);
    expect(inner.reads()).toBe(1);
    await cached.readPipeline('p', 11_000);
    expect(inner.reads()).toBe(2);
    await cached.readPipeline('other', 11_000);
    expect(inner.reads()).toBe(3);
  });

  it('shares one read among concurrent misses', async () => {
    const inner = countingStore();
    const cached = new CachedBreakerStore(inner.store, { lifetimeMs: 1_000 });
    await Promise.all(Array.from({ length: 50 }, () => cached.readPipeline('p', 10_000)));
    expect(inner.reads()).toBe(1);
  });

  it("shows this container's own writes at once", async () => {
    const clock = createFakeClock();
    const cached = new CachedBreakerStore(countingStore().store, { lifetimeMs: 60_000 });
    const c = containerOn(cached, clock);
    await c.state('a');
    await c.record('a', 'rate_limited');
    expect(await c.state('a')).toMatchObject({ streak: 1, attempts: 1 });
    await c.record('a', 'rate_limited');
    expect((await c.state('a')).open).toBe(true);
  });

  it('keeps a write that finished while a read was in flight', async () => {
    const clock = createFakeClock();
    const inner = countingStore();
    const cached = new CachedBreakerStore(inner.store, { lifetimeMs: 60_000 });
    const release = inner.hold();
    const reading = cached.readPipeline('p', clock.now());
    await cached.record('p', 'a', { at: clock.now(), outcome: 'rate_limited' }, POLICY);
    release();
    await reading;
    expect((await cached.readPipeline('p', clock.now())).get('a')?.consecutive429).toBe(1);
  });

  it("sees another container's opening at most one lifetime late (the trade-off)", async () => {
    const clock = createFakeClock();
    const shared = createMemoryBreakerStore();
    const cached = containerOn(new CachedBreakerStore(shared, { lifetimeMs: 1_000 }), clock);
    const other = containerOn(shared, clock);
    expect((await cached.state('a')).open).toBe(false);
    await other.record('a', 'rate_limited');
    await other.record('a', 'rate_limited');
    clock.advance(999);
    expect((await cached.state('a')).open).toBe(false);
    clock.advance(1);
    expect((await cached.state('a')).open).toBe(true);
  });

  it("drops its entry when another container won the opening, to read the winner's state", async () => {
    const clock = createFakeClock();
    const shared = createMemoryBreakerStore();
    const cached = new CachedBreakerStore(shared, { lifetimeMs: 60_000 });
    await cached.readPipeline('p', clock.now());
    await shared.tryOpen('p', 'a', { now: clock.now(), reason: 'failure_rate', policy: POLICY });
    expect(await cached.tryOpen('p', 'a', { now: clock.now(), reason: 'failure_rate', policy: POLICY })).toBe(
      false,
    );
    const seen: BreakerSnapshot | undefined = (await cached.readPipeline('p', clock.now())).get('a');
    expect(seen?.openReason).toBe('failure_rate');
  });
});

describe('read cache over DynamoDB', () => {
  let dynalite: RunningDynalite;
  beforeAll(async () => {
    dynalite = await startDynalite();
  });
  afterAll(() => dynalite.stop());

  it('turns one Query per attempt into one Query per pipeline per lifetime', async () => {
    const table = await openBreakerTable(dynalite);
    const clock = createFakeClock();
    const c = containerOn(new CachedBreakerStore(table.store, { lifetimeMs: 1_000 }), clock);
    for (let i = 0; i < 50; i++) {
      await c.breakers.read('p');
      await c.record('a', 'ok');
      clock.advance(20); // 50 attempts a second
    }
    expect(table.counts.get('QueryCommand')).toBe(1);
    expect(table.counts.get('UpdateItemCommand')).toBe(50);
    table.close();
  });
});
