import { describe, expect, it } from 'vitest';
import { DEFAULT_BREAKER_POLICY } from '../../../lambda/core/breaker/breaker-policy.js';
import type { BreakerStore } from '../../../lambda/core/breaker/breaker-store.js';
import { createBreakers } from '../../../lambda/core/breaker/breakers.js';
import {
  accountRouteId,
  applyRateLimit,
  coolingEnd,
  isRouteCooling,
  NOT_COOLING,
  parseAccountRouteId,
} from '../../../lambda/core/breaker/route-cooling.js';
import { rateLimitSchema } from '../../../lambda/core/catalog/rate-limit-config-schema.js';
import { createMemoryBreakerStore } from '../../../lambda/stores/memory-breaker-store.js';
import { createFakeClock } from '../../helpers/fake-clock.js';

const T0 = 1_700_000_000_000;
const POLICY = { coolMs: 5_000, maxMs: 60_000 };

describe('account-route cooling', () => {
  it('defaults rateLimit.coolMs to 5 s and the read cache to 1 s', () => {
    expect(rateLimitSchema.parse({})).toEqual({ coolMs: 5_000, readCacheMs: 1_000 });
  });

  it('cools for coolMs without a Retry-After: cooling at coolMs - 1, not at exactly coolMs', () => {
    const state = applyRateLimit(NOT_COOLING, { at: T0, pipeline: 'p' }, POLICY);
    expect(state).toEqual({ coolUntil: T0 + 5_000, cooledAt: T0, cooledBy: 'p' });
    expect(isRouteCooling(state, T0 + 4_999)).toBe(true);
    expect(isRouteCooling(state, T0 + 5_000)).toBe(false);
  });

  it('cools for exactly the Retry-After when one is given', () => {
    const state = applyRateLimit(NOT_COOLING, { at: T0, pipeline: 'p', retryAfterMs: 2_000 }, POLICY);
    expect(isRouteCooling(state, T0 + 1_999)).toBe(true);
    expect(isRouteCooling(state, T0 + 2_000)).toBe(false);
  });

  it('caps a Retry-After at maxMs (the pipeline’s openMs), exactly', () => {
    expect(coolingEnd({ at: T0, pipeline: 'p', retryAfterMs: 60_000 }, POLICY)).toBe(T0 + 60_000);
    expect(coolingEnd({ at: T0, pipeline: 'p', retryAfterMs: 60_001 }, POLICY)).toBe(T0 + 60_000);
    expect(coolingEnd({ at: T0, pipeline: 'p' }, { coolMs: 5_000, maxMs: 3_000 })).toBe(T0 + 3_000);
  });

  it('keeps the later end: a shorter hint from another pipeline does not shorten the cooling', () => {
    const long = applyRateLimit(NOT_COOLING, { at: T0, pipeline: 'a', retryAfterMs: 30_000 }, POLICY);
    expect(applyRateLimit(long, { at: T0 + 10, pipeline: 'b', retryAfterMs: 1_000 }, POLICY)).toBe(long);
    const later = applyRateLimit(long, { at: T0 + 10, pipeline: 'b', retryAfterMs: 40_000 }, POLICY);
    expect(later).toEqual({ coolUntil: T0 + 40_010, cooledAt: T0 + 10, cooledBy: 'b' });
  });

  it('names an account route by provider and upstream model id, whatever characters they hold', () => {
    const id = accountRouteId('open router', 'meta-llama/llama-3.3:free');
    expect(parseAccountRouteId(id)).toEqual({ provider: 'open router', model: 'meta-llama/llama-3.3:free' });
    expect(id).not.toBe(accountRouteId('open', 'router meta-llama/llama-3.3:free'));
  });
});

describe('breakers with account-route cooling', () => {
  const setup = (store: BreakerStore = createMemoryBreakerStore(), readCacheMs = 1_000) => {
    const clock = createFakeClock(T0);
    const errors: string[] = [];
    const breakers = createBreakers({
      store,
      clock,
      policyFor: () => ({
        ...DEFAULT_BREAKER_POLICY,
        windowMs: 900_000,
        minSamples: 5,
        failureRate: 0.3,
        consecutive429: 2,
        openMs: 900_000,
      }),
      events: { onStoreError: (op) => errors.push(op) },
      routeCooling: {
        coolMs: 5_000,
        readCacheMs,
        // Two model keys on the same account and upstream id, one on another account.
        accountRouteOf: (key) => ({ a: 'acct/m', alias: 'acct/m', b: 'other/m' })[key],
      },
    });
    return { clock, breakers, errors };
  };

  it('a 429 in one pipeline cools the account route for every model key that calls it', async () => {
    const { clock, breakers } = setup();
    await breakers.record('p1', 'a', { at: clock.now(), outcome: 'rate_limited' });
    const cooling = await breakers.routeCooling(['a', 'alias', 'b']);
    expect([...cooling.keys()].sort()).toEqual(['a', 'alias']);
    expect(cooling.get('alias')).toMatchObject({ coolUntil: T0 + 5_000, cooledBy: 'p1' });
    // The pipeline's own breaker keeps its rule: one 429 is a streak of one, not an opening.
    expect((await breakers.read('p1')).get('a')?.openUntil).toBeUndefined();
  });

  it('other failures and successes cool nothing', async () => {
    const { clock, breakers } = setup();
    await breakers.record('p1', 'a', { at: clock.now(), outcome: 'unavailable' });
    await breakers.record('p1', 'a', { at: clock.now(), outcome: 'ok' });
    expect((await breakers.routeCooling(['a'])).size).toBe(0);
  });

  it('reads the store at most once per readCacheMs, and at once again when it has passed', async () => {
    const inner = createMemoryBreakerStore();
    let reads = 0;
    const counted: BreakerStore = Object.assign(Object.create(inner), {
      readRoutes: (routes: readonly string[], now: number) => {
        reads += 1;
        return inner.readRoutes(routes, now);
      },
    });
    const { clock, breakers } = setup(counted);
    await Promise.all([breakers.routeCooling(['a']), breakers.routeCooling(['a', 'b'])]);
    expect(reads).toBe(2); // `b` was not in the first read
    clock.advance(999);
    await breakers.routeCooling(['a', 'b']);
    expect(reads).toBe(2);
    clock.advance(1);
    await breakers.routeCooling(['a', 'b']);
    expect(reads).toBe(3);
  });

  it('sees another container’s 429 once its cache lifetime has passed', async () => {
    const store = createMemoryBreakerStore();
    const one = setup(store);
    const two = setup(store);
    expect((await two.breakers.routeCooling(['a'])).size).toBe(0);
    await one.breakers.record('p1', 'a', { at: T0, outcome: 'rate_limited', retryAfterMs: 3_000 });
    expect((await two.breakers.routeCooling(['a'])).size).toBe(0);
    two.clock.advance(1_000);
    expect((await two.breakers.routeCooling(['a'])).get('a')?.coolUntil).toBe(T0 + 3_000);
  });

  it('a store that fails keeps this container’s own cooling and reports the error', async () => {
    const failing: BreakerStore = Object.assign(Object.create(createMemoryBreakerStore()), {
      readRoutes: async () => {
        throw new Error('socket hang up');
      },
      coolRoute: async () => {
        throw new Error('socket hang up');
      },
    });
    const { clock, breakers, errors } = setup(failing, 0);
    await breakers.record('p1', 'a', { at: clock.now(), outcome: 'rate_limited' });
    expect((await breakers.routeCooling(['alias'])).get('alias')?.coolUntil).toBe(T0 + 5_000);
    expect(errors).toEqual(['cool-route', 'read-routes']);
  });
});
