/**
 * Account-route cooling as the breakers use it, at its edges: what never reaches the store, and a
 * store that fails with nobody listening for store errors (docs/concepts.md#account-route-cooling).
 */
import { describe, expect, it } from 'vitest';
import { createAccountCooling } from '../../../lambda/core/breaker/account-cooling.js';
import type { BreakerStore } from '../../../lambda/core/breaker/breaker-store.js';
import type { BreakersOptions } from '../../../lambda/core/breaker/breakers.js';
import { createMemoryBreakerStore } from '../../../lambda/stores/memory-breaker-store.js';
import { createFakeClock } from '../../helpers/fake-clock.js';

const T0 = 1_700_000_000_000;
const POLICY = { windowMs: 900_000, minSamples: 5, failureRate: 0.3, consecutive429: 2, openMs: 900_000 };

/** A memory store that counts its route calls, or fails them. */
function storeWith(behaviour: 'counts' | 'fails') {
  const inner = createMemoryBreakerStore();
  const calls = { reads: 0, cools: 0 };
  const store: BreakerStore = Object.assign(Object.create(inner), {
    readRoutes: async (routes: readonly string[], now: number) => {
      calls.reads += 1;
      if (behaviour === 'fails') throw new Error('socket hang up');
      return inner.readRoutes(routes, now);
    },
    coolRoute: async (...args: Parameters<BreakerStore['coolRoute']>) => {
      calls.cools += 1;
      if (behaviour === 'fails') throw new Error('socket hang up');
      return inner.coolRoute(...args);
    },
  });
  return { store, calls };
}

function cooling(store: BreakerStore, withCooling = true, events: BreakersOptions['events'] = undefined) {
  return createAccountCooling({
    store,
    clock: createFakeClock(T0),
    policyFor: () => POLICY,
    events,
    routeCooling: withCooling
      ? { coolMs: 5_000, readCacheMs: 0, accountRouteOf: (key) => ({ a: 'acct/m' })[key] }
      : undefined,
  });
}

const RATE_LIMITED = { at: T0, outcome: 'rate_limited' as const };

describe('account cooling', () => {
  it('without route cooling configured, a 429 writes nothing and a read asks nothing', async () => {
    const { store, calls } = storeWith('counts');
    const off = cooling(store, false);
    await off.cool('p', 'a', RATE_LIMITED);
    expect(await off.read(['a'])).toEqual(new Map());
    expect(calls).toEqual({ reads: 0, cools: 0 });
  });

  it('a 429 on a route key with no account route writes nothing', async () => {
    const { store, calls } = storeWith('counts');
    await cooling(store).cool('p', 'unmapped', RATE_LIMITED);
    expect(calls.cools).toBe(0);
  });

  it('a 503 writes nothing; a 429 writes once', async () => {
    const { store, calls } = storeWith('counts');
    const on = cooling(store);
    await on.cool('p', 'a', { at: T0, outcome: 'unavailable' });
    expect(calls.cools).toBe(0);
    await on.cool('p', 'a', RATE_LIMITED);
    expect(calls.cools).toBe(1);
  });

  it('reading only keys without an account route asks the store nothing', async () => {
    const { store, calls } = storeWith('counts');
    expect(await cooling(store).read(['unmapped', 'other'])).toEqual(new Map());
    expect(calls.reads).toBe(0);
  });

  it('a failing store with no error listener neither throws nor forgets the 429 seen here', async () => {
    const { store } = storeWith('fails');
    const on = cooling(store, true, {});
    await expect(on.cool('p', 'a', RATE_LIMITED)).resolves.toBeUndefined();
    const seen = await on.read(['a']);
    expect(seen.get('a')).toMatchObject({ coolUntil: T0 + 5_000, cooledBy: 'p' });
  });
});
