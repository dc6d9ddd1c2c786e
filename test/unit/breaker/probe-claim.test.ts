import { describe, expect, it } from 'vitest';
import { type BreakerPolicy, DEFAULT_BREAKER_POLICY } from '../../../lambda/core/breaker/breaker-policy.js';
import type { BreakerStore } from '../../../lambda/core/breaker/breaker-store.js';
import { createBreakers } from '../../../lambda/core/breaker/breakers.js';
import { createMemoryBreakerStore } from '../../../lambda/stores/memory-breaker-store.js';
import { createFakeClock } from '../../helpers/fake-clock.js';

const T0 = 1_700_000_000_000;
const RAMP: BreakerPolicy = { ...DEFAULT_BREAKER_POLICY, recovery: 'ramp' };
/** The first slot after an opening (the default schedule's first step). */
const EVERY = 10_000;

/**
 * A container's breakers (model `a`, no account route) over a shared memory store whose reads and
 * probe claims can be made to fail.
 */
function container(inner: BreakerStore = createMemoryBreakerStore(), clock = createFakeClock(T0)) {
  const fail = { reads: false, claims: false };
  const store: BreakerStore = Object.assign(Object.create(inner), {
    readPipeline: (...args: Parameters<BreakerStore['readPipeline']>) => {
      if (fail.reads) return Promise.reject(new Error('socket hang up'));
      return inner.readPipeline(...args);
    },
    claimProbe: (...args: Parameters<BreakerStore['claimProbe']>) => {
      if (fail.claims) return Promise.reject(new Error('socket hang up'));
      return inner.claimProbe(...args);
    },
  });
  const errors: string[] = [];
  const breakers = createBreakers({
    store,
    clock,
    policyFor: () => RAMP,
    events: { onStoreError: (op: string) => errors.push(op) },
  });
  const open = async () => {
    for (let i = 0; i < 5; i++) await breakers.record('p', 'a', { at: clock.now(), outcome: 'unavailable' });
  };
  return { inner, clock, fail, errors, breakers, open };
}

describe('claiming a probe slot', () => {
  it('after its claim, a store outage still shows this process its own probe lease, until probeLeaseMs from the claim', async () => {
    const t = container();
    await t.open();
    t.clock.advance(EVERY);
    const slot = (await t.breakers.read('p')).get('a')?.openUntil ?? Number.NaN;
    expect(await t.breakers.claimProbe('p', 'a', slot)).toBe(true);
    t.fail.reads = true;

    expect((await t.breakers.read('p')).get('a')).toMatchObject({
      openUntil: T0 + EVERY + RAMP.probeLeaseMs,
      probeAt: T0 + EVERY,
    });
    expect(t.errors).toEqual(['read']);
  });

  it('a container that never read the pipeline may claim its slot, and learns no breaker state from the claim', async () => {
    const one = container();
    await one.open();
    one.clock.advance(EVERY);
    const slot = (await one.breakers.read('p')).get('a')?.openUntil ?? Number.NaN;
    const two = container(one.inner, one.clock);

    expect(await two.breakers.claimProbe('p', 'a', slot)).toBe(true);
    two.fail.reads = true;
    expect((await two.breakers.read('p')).has('a')).toBe(false);
  });

  it('a store error on the breaker’s own claim lets this process probe, and is reported as probe', async () => {
    const t = container();
    await t.open();
    t.clock.advance(EVERY);
    const slot = (await t.breakers.read('p')).get('a')?.openUntil ?? Number.NaN;
    t.fail.claims = true;

    expect(await t.breakers.claimProbe('p', 'a', slot)).toBe(true);
    expect(t.errors).toEqual(['probe']);
  });
});
