import { describe, expect, it } from 'vitest';
import { type BreakerPolicy, DEFAULT_BREAKER_POLICY } from '../../../lambda/core/breaker/breaker-policy.js';
import type { BreakerStore } from '../../../lambda/core/breaker/breaker-store.js';
import { type BreakerRecovering, createBreakers } from '../../../lambda/core/breaker/breakers.js';
import { accountRouteId } from '../../../lambda/core/breaker/route-cooling.js';
import { createMemoryBreakerStore } from '../../../lambda/stores/memory-breaker-store.js';
import { createFakeClock } from '../../helpers/fake-clock.js';

const T0 = 1_700_000_000_000;
const RAMP: BreakerPolicy = { ...DEFAULT_BREAKER_POLICY, recovery: 'ramp' };
/** The first step of the default schedule: the first slot after an opening, and the next after a failed probe. */
const EVERY = 10_000;

/** Pipelines `p` and `q` call model key `a` on one account route; `solo` is no account route. */
function setup(
  store: BreakerStore = createMemoryBreakerStore(),
  { readCacheMs = 0, clock = createFakeClock(T0), events = true } = {},
) {
  const errors: string[] = [];
  const recovering: BreakerRecovering[] = [];
  const breakers = createBreakers({
    store,
    clock,
    policyFor: () => RAMP,
    ...(events
      ? {
          events: {
            onStoreError: (op: string) => errors.push(op),
            onRecovery: (e: BreakerRecovering) => recovering.push(e),
          },
        }
      : {}),
    routeCooling: {
      coolMs: 5_000,
      readCacheMs,
      accountRouteOf: (key) => (key === 'solo' ? undefined : accountRouteId('acct', 'm')),
    },
  });
  /** Opens `model`'s breaker of `pipeline` by the failure rate (five 503s at the current time). */
  const open = async (pipeline: string, model = 'a') => {
    for (let i = 0; i < 5; i++)
      await breakers.record(pipeline, model, { at: clock.now(), outcome: 'unavailable' });
  };
  const slot = async (pipeline: string, model = 'a') =>
    (await breakers.read(pipeline)).get(model)?.openUntil ?? Number.NaN;
  /** Claims `pipeline`'s probe slot as a selection would, at the slot it reads. */
  const claim = async (pipeline: string, model = 'a') =>
    breakers.claimProbe(pipeline, model, await slot(pipeline, model));
  const probe = (pipeline: string, outcome: 'ok' | 'unavailable', model = 'a') =>
    breakers.record(pipeline, model, { at: clock.now(), outcome, probe: true });
  return { clock, breakers, errors, recovering, open, slot, claim, probe };
}

describe('probes shared per account route', () => {
  it('while one pipeline’s probe is out, another pipeline’s breaker does not probe the same account route', async () => {
    const t = setup();
    await t.open('p');
    await t.open('q');
    t.clock.advance(EVERY);
    expect(await t.claim('p')).toBe(true);
    expect(await t.claim('q')).toBe(false);
    // The winner reports its probe once, leased for probeLeaseMs; the refused pipeline nothing.
    expect(t.recovering).toEqual([
      { pipeline: 'p', model: 'a', phase: 'probing', at: T0 + EVERY, until: T0 + EVERY + RAMP.probeLeaseMs },
    ]);
  });

  it('after a failed probe no pipeline probes before the prober’s next slot; exactly at it, another may', async () => {
    const t = setup();
    await t.open('p');
    await t.open('q');
    t.clock.advance(EVERY);
    expect(await t.claim('p')).toBe(true);
    t.clock.advance(40);
    await t.probe('p', 'unavailable');
    const next = T0 + EVERY + 40 + EVERY;
    expect(await t.slot('p')).toBe(next);
    t.clock.set(next - 1);
    expect(await t.claim('q')).toBe(false);
    t.clock.set(next);
    expect(await t.claim('q')).toBe(true);
    // q holds it now: p's own slot has come, but the account route is being probed.
    expect(await t.claim('p')).toBe(false);
  });

  it('a success clears the gate: every pipeline whose breaker opened before it probes at once, without waiting for the others', async () => {
    const t = setup();
    await t.open('p');
    await t.open('q');
    await t.open('r');
    t.clock.advance(EVERY);
    expect(await t.claim('p')).toBe(true);
    t.clock.advance(40);
    await t.probe('p', 'ok');
    expect(await t.claim('q')).toBe(true);
    expect(await t.claim('r')).toBe(true);
    // p's next slot is at once after its success, and the clear gate lets it go beside q's and r's.
    expect(await t.claim('p')).toBe(true);
  });

  it('a failed probe after a success shuts the cleared gate again for everyone', async () => {
    const t = setup();
    await t.open('p');
    await t.open('q');
    t.clock.advance(EVERY);
    await t.claim('p');
    await t.probe('p', 'ok');
    expect(await t.claim('q')).toBe(true);
    t.clock.advance(40);
    await t.probe('q', 'unavailable');
    expect(await t.claim('p')).toBe(false);
    t.clock.advance(EVERY);
    expect(await t.claim('p')).toBe(true);
  });

  it('a breaker opened after the last success takes the gate like any other', async () => {
    const t = setup();
    await t.open('p');
    t.clock.advance(EVERY);
    await t.claim('p');
    await t.probe('p', 'ok');
    t.clock.advance(1);
    await t.open('q');
    t.clock.advance(EVERY);
    expect(await t.claim('q')).toBe(true);
    expect(await t.claim('p')).toBe(false);
  });

  it('a route without an account route probes by its own breaker alone, as before', async () => {
    const t = setup();
    await t.open('p', 'solo');
    await t.open('q', 'solo');
    t.clock.advance(EVERY);
    expect(await t.claim('p', 'solo')).toBe(true);
    expect(await t.claim('q', 'solo')).toBe(true);
  });

  it('a store error on the gate lets this process probe on its own, and is reported as probe-route', async () => {
    const inner = createMemoryBreakerStore();
    const failing: BreakerStore = Object.assign(Object.create(inner), {
      claimRouteProbe: async () => {
        throw new Error('socket hang up');
      },
      settleRouteProbe: async () => {
        throw new Error('socket hang up');
      },
    });
    const t = setup(failing);
    await t.open('p');
    await t.open('q');
    t.clock.advance(EVERY);
    expect(await t.claim('p')).toBe(true);
    await t.probe('p', 'unavailable');
    expect(t.errors).toEqual(['probe-route', 'probe-route']);
    // What this process worked out for itself: shut until p's next slot, though q's own slot has come.
    t.clock.advance(EVERY - 1);
    expect(await t.claim('q')).toBe(false);
    t.clock.advance(1);
    expect(await t.claim('q')).toBe(true);
  });

  it('a probe that took the gate writes no claim of its own breaker; one through a clear gate claims its breaker', async () => {
    const inner = createMemoryBreakerStore();
    const calls: string[] = [];
    const counting: BreakerStore = Object.assign(Object.create(inner), {
      claimProbe: (...args: Parameters<BreakerStore['claimProbe']>) => {
        calls.push('claimProbe');
        return inner.claimProbe(...args);
      },
      claimRouteProbe: (...args: Parameters<BreakerStore['claimRouteProbe']>) => {
        calls.push('claimRouteProbe');
        return inner.claimRouteProbe(...args);
      },
    });
    const t = setup(counting);
    await t.open('p');
    await t.open('q');
    t.clock.advance(EVERY);
    expect(await t.claim('p')).toBe(true);
    expect(calls).toEqual(['claimRouteProbe']);
    await t.probe('p', 'ok');
    expect(await t.claim('q')).toBe(true);
    expect(calls).toEqual(['claimRouteProbe', 'claimProbe']);
  });

  it('a probe that ends in the caller’s own error gives the gate back at once: another pipeline probes in the same slot', async () => {
    const t = setup();
    await t.open('p');
    await t.open('q');
    await t.open('r');
    t.clock.advance(EVERY);
    expect(await t.claim('p')).toBe(true);
    expect(await t.claim('q')).toBe(false);
    await t.breakers.record('p', 'a', { at: t.clock.now(), outcome: 'invalid_request', probe: true });
    expect(await t.claim('q')).toBe(true);
    // Given back, not cleared: nothing answered, so q's probe holds the gate against the others.
    expect(await t.claim('r')).toBe(false);
  });

  /** A memory store that notes every gate and claim write. */
  const recording = () => {
    const inner = createMemoryBreakerStore();
    const calls: string[] = [];
    const store: BreakerStore = Object.assign(Object.create(inner), {
      claimProbe: (...args: Parameters<BreakerStore['claimProbe']>) => {
        calls.push(`claimProbe ${args[0]}`);
        return inner.claimProbe(...args);
      },
      claimRouteProbe: (...args: Parameters<BreakerStore['claimRouteProbe']>) => {
        calls.push(`claimRouteProbe ${args[1].pipeline}`);
        return inner.claimRouteProbe(...args);
      },
      settleRouteProbe: (...args: Parameters<BreakerStore['settleRouteProbe']>) => {
        calls.push(`settleRouteProbe ${args[1].pipeline} ${args[1].ok ? 'ok' : 'failed'}`);
        return inner.settleRouteProbe(...args);
      },
    });
    return { store, calls };
  };

  it('writes the gate only to take it and for outcomes that change it: a success through a clear gate writes nothing', async () => {
    const { store, calls } = recording();
    const t = setup(store);
    await t.open('p');
    await t.open('q');
    t.clock.advance(EVERY);
    await t.claim('p');
    await t.probe('p', 'ok');
    await t.claim('q');
    await t.probe('q', 'ok');
    await t.claim('q');
    await t.probe('q', 'unavailable');
    expect(calls).toEqual([
      'claimRouteProbe p',
      'settleRouteProbe p ok',
      'claimProbe q',
      'claimProbe q',
      'settleRouteProbe q failed',
    ]);
  });

  it('a container that lost the gate to another treats it as held until its next read, without asking the store again', async () => {
    const { store, calls } = recording();
    const clock = createFakeClock(T0);
    const one = setup(store, { clock, readCacheMs: 1_000 });
    const two = setup(store, { clock, readCacheMs: 1_000 });
    await one.open('p');
    await two.open('q');
    clock.advance(EVERY);
    // Container two reads the gate (free) before container one takes it.
    await two.breakers.routeCooling(['a']);
    expect(await one.claim('p')).toBe(true);
    expect(await two.claim('q')).toBe(false);
    expect(await two.claim('q')).toBe(false);
    expect(calls.filter((c) => c === 'claimRouteProbe q')).toHaveLength(1);
  });

  it('a container sees its own probe’s outcome at once: after a failure, the gate reopens at the next slot, not at the lease end', async () => {
    const t = setup(createMemoryBreakerStore(), { readCacheMs: 60_000 });
    await t.open('p');
    await t.open('q');
    t.clock.advance(EVERY);
    expect(await t.claim('p')).toBe(true);
    await t.probe('p', 'unavailable');
    t.clock.advance(EVERY);
    expect(await t.claim('q')).toBe(true);
  });

  it('a store error on the gate with no event listener still lets the probe go', async () => {
    const inner = createMemoryBreakerStore();
    const failing: BreakerStore = Object.assign(Object.create(inner), {
      claimRouteProbe: async () => {
        throw new Error('socket hang up');
      },
      claimProbe: async () => {
        throw new Error('socket hang up');
      },
    });
    const t = setup(failing, { events: false });
    await t.open('p');
    t.clock.advance(EVERY);
    expect(await t.claim('p')).toBe(true);
  });

  it('a probe whose outcome comes after its lease does not cost the pipeline that took the gate since: its success still clears it', async () => {
    const t = setup();
    await t.open('p');
    await t.open('q');
    await t.open('r');
    t.clock.advance(EVERY);
    expect(await t.claim('p')).toBe(true);
    t.clock.advance(RAMP.probeLeaseMs);
    expect(await t.claim('q')).toBe(true);
    // p's probe ends late; its failure shuts nothing before q's lease ends.
    await t.probe('p', 'unavailable');
    expect(await t.claim('r')).toBe(false);
    await t.probe('q', 'ok');
    expect(await t.claim('r')).toBe(true);
  });

  it('a late outcome the store refuses leaves this container’s view of the newer claim as it was: the next claim is held without asking the store', async () => {
    const { store, calls } = recording();
    const t = setup(store, { readCacheMs: 60_000 });
    await t.open('p');
    await t.open('q');
    await t.open('r');
    t.clock.advance(EVERY);
    await t.claim('p');
    t.clock.advance(RAMP.probeLeaseMs);
    await t.claim('q');
    await t.probe('p', 'unavailable');
    expect(await t.claim('r')).toBe(false);
    expect(calls).toEqual(['claimRouteProbe p', 'claimRouteProbe q', 'settleRouteProbe p failed']);
  });

  it('after a success, the same pipeline’s next success through the clear gate writes nothing', async () => {
    const { store, calls } = recording();
    const t = setup(store);
    await t.open('p');
    t.clock.advance(EVERY);
    await t.claim('p');
    await t.probe('p', 'ok');
    expect(await t.claim('p')).toBe(true);
    await t.probe('p', 'ok');
    expect(calls).toEqual(['claimRouteProbe p', 'settleRouteProbe p ok', 'claimProbe p']);
  });

  it('a pipeline that found the gate held, probing later through the clear gate, writes nothing on success', async () => {
    const { store, calls } = recording();
    const t = setup(store);
    await t.open('p');
    await t.open('q');
    t.clock.advance(EVERY);
    expect(await t.claim('p')).toBe(true);
    expect(await t.claim('q')).toBe(false);
    await t.probe('p', 'ok');
    expect(await t.claim('q')).toBe(true);
    await t.probe('q', 'ok');
    expect(calls).toEqual(['claimRouteProbe p', 'settleRouteProbe p ok', 'claimProbe q']);
  });

  it('a gate is given back once: the same pipeline’s later caller error through the clear gate writes nothing', async () => {
    const { store, calls } = recording();
    const t = setup(store);
    await t.open('p');
    await t.open('q');
    t.clock.advance(EVERY);
    await t.claim('p');
    const callerError = () =>
      t.breakers.record('p', 'a', { at: t.clock.now(), outcome: 'invalid_request', probe: true });
    await callerError();
    expect(await t.claim('q')).toBe(true);
    await t.probe('q', 'ok');
    await t.claim('p');
    await callerError();
    expect(calls.filter((c) => c.startsWith('settleRouteProbe'))).toEqual([
      'settleRouteProbe p failed',
      'settleRouteProbe q ok',
    ]);
  });

  it('a route without an account route writes no gate: not for its probe’s failure, nor for its caller’s own error', async () => {
    const { store, calls } = recording();
    const t = setup(store);
    await t.open('p', 'solo');
    t.clock.advance(EVERY);
    expect(await t.claim('p', 'solo')).toBe(true);
    await t.probe('p', 'unavailable', 'solo');
    t.clock.advance(EVERY);
    expect(await t.claim('p', 'solo')).toBe(true);
    await t.breakers.record('p', 'solo', { at: t.clock.now(), outcome: 'invalid_request', probe: true });
    expect(calls).toEqual(['claimProbe p', 'claimProbe p']);
  });

  it('a store error giving the gate back, with no event listener, does not fail the recording of the sample', async () => {
    const inner = createMemoryBreakerStore();
    const failing: BreakerStore = Object.assign(Object.create(inner), {
      settleRouteProbe: async () => {
        throw new Error('socket hang up');
      },
    });
    const t = setup(failing, { events: false });
    await t.open('p');
    t.clock.advance(EVERY);
    expect(await t.claim('p')).toBe(true);
    await expect(
      t.breakers.record('p', 'a', { at: t.clock.now(), outcome: 'invalid_request', probe: true }),
    ).resolves.toBeUndefined();
  });

  it('a container that lost the gate to another, probing later through the clear gate, writes nothing on success', async () => {
    const { store, calls } = recording();
    const clock = createFakeClock(T0);
    const one = setup(store, { clock, readCacheMs: 1_000 });
    const two = setup(store, { clock, readCacheMs: 1_000 });
    await one.open('p');
    await two.open('q');
    clock.advance(EVERY);
    await two.breakers.routeCooling(['a']);
    expect(await one.claim('p')).toBe(true);
    expect(await two.claim('q')).toBe(false);
    await one.probe('p', 'ok');
    clock.advance(1_000);
    expect(await two.claim('q')).toBe(true);
    await two.probe('q', 'ok');
    expect(calls).toEqual([
      'claimRouteProbe p',
      'claimRouteProbe q',
      'settleRouteProbe p ok',
      'claimProbe q',
    ]);
  });
});
