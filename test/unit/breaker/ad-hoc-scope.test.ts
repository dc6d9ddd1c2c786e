import { describe, expect, it } from 'vitest';
import { PIPELINE_STATE_LIMIT } from '../../../lambda/core/bounded-map.js';
import { DEFAULT_BREAKER_POLICY } from '../../../lambda/core/breaker/breaker-policy.js';
import { EMPTY_SNAPSHOT, isOpen } from '../../../lambda/core/breaker/breaker-state.js';
import { type BreakerOpened, createBreakers } from '../../../lambda/core/breaker/breakers.js';
import { stateScope, stateScopeIn } from '../../../lambda/core/catalog/ad-hoc-chains.js';
import { createMemoryBreakerStore } from '../../../lambda/stores/memory-breaker-store.js';
import { createFakeClock } from '../../helpers/fake-clock.js';

const OK = { outcome: 'ok' as const };

function breakersOnMemory(scopeOf?: (pipeline: string) => string) {
  const clock = createFakeClock();
  const store = createMemoryBreakerStore();
  const opened: BreakerOpened[] = [];
  const breakers = createBreakers({
    store,
    clock,
    policyFor: () => DEFAULT_BREAKER_POLICY,
    scopeOf,
    events: { onOpened: (e) => opened.push(e) },
  });
  return { clock, store, breakers, opened };
}

describe('the state scope of a pipeline id', () => {
  it.each([
    ['p', 'p'],
    ['chain:(a|b),c', 'adhoc'],
    ['chain:', 'adhoc'],
    ['adhoc', 'adhoc'],
    ['chainx', 'chainx'],
    ['Adhoc', 'Adhoc'],
  ])('keeps %s under %s', (pipeline, scope) => {
    expect(stateScope(pipeline)).toBe(scope);
  });
});

describe('ad-hoc chains in the breakers', () => {
  it('keeps every ad-hoc chain’s breakers under the one pipeline adhoc, per model route', async () => {
    const { clock, store, breakers, opened } = breakersOnMemory();
    await breakers.record('chain:a,b', 'a', { at: clock.now(), outcome: 'model_not_found' });
    expect(opened).toEqual([
      expect.objectContaining({ pipeline: 'adhoc', model: 'a', reason: 'model_not_found' }),
    ]);
    // Another chain naming `a` sees the same quarantine: evidence about a route is shared.
    const other = await breakers.read('chain:(a|c)');
    expect(isOpen(other.get('a') ?? EMPTY_SNAPSHOT, clock.now())).toBe(true);
    expect((await store.readPipeline('adhoc')).has('a')).toBe(true);
    expect((await store.readPipeline('chain:a,b')).size).toBe(0);
  });

  it(`leaves a configured pipeline’s quarantine in place after ${PIPELINE_STATE_LIMIT + 50} distinct ad-hoc chains`, async () => {
    const { clock, store, breakers } = breakersOnMemory();
    await breakers.record('p', 'a', { at: clock.now(), outcome: 'model_not_found' });
    for (let i = 0; i < PIPELINE_STATE_LIMIT + 50; i += 1)
      await breakers.record(`chain:(b*${i + 2}|c)`, 'b', { at: clock.now(), ...OK });
    const p = await store.readPipeline('p');
    expect(p.get('a')?.openReason).toBe('model_not_found');
    expect(isOpen(p.get('a') ?? EMPTY_SNAPSHOT, clock.now())).toBe(true);
    expect((await store.readPipeline('adhoc')).size).toBe(1);
  });
});

describe('pipelines only an override names', () => {
  it(`keep ${PIPELINE_STATE_LIMIT + 50} spellings of one name under its variable, and a configured pipeline’s quarantine`, async () => {
    const { clock, store, breakers } = breakersOnMemory(stateScopeIn((pipeline) => pipeline === 'p'));
    await breakers.record('p', 'a', { at: clock.now(), outcome: 'model_not_found' });
    for (let i = 0; i < PIPELINE_STATE_LIMIT + 50; i += 1)
      await breakers.record(`f${String.fromCodePoint(0x4e00 + i)}o`, 'b', { at: clock.now(), ...OK });
    expect((await store.readPipeline('p')).get('a')?.openReason).toBe('model_not_found');
    expect((await store.readPipeline('env:MODEL_F_O')).size).toBe(1);
    expect((await breakers.read('F-O')).size).toBe(1);
  });
});

describe('the memory store’s bound, at its exact limit', () => {
  const record = (store: ReturnType<typeof createMemoryBreakerStore>, pipeline: string) =>
    store.record(pipeline, 'a', { at: 1, ...OK }, DEFAULT_BREAKER_POLICY);

  it(`keeps the first pipeline with exactly ${PIPELINE_STATE_LIMIT} pipelines held`, async () => {
    const store = createMemoryBreakerStore();
    for (let i = 0; i < PIPELINE_STATE_LIMIT; i += 1) await record(store, `p${i}`);
    expect((await store.readPipeline('p0')).size).toBe(1);
  });

  it('forgets the oldest pipeline at the next one after the limit', async () => {
    const store = createMemoryBreakerStore();
    for (let i = 0; i <= PIPELINE_STATE_LIMIT; i += 1) await record(store, `p${i}`);
    expect((await store.readPipeline('p0')).size).toBe(0);
    expect((await store.readPipeline('p1')).size).toBe(1);
  });
});
