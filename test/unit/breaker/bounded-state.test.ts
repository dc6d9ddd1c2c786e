import { describe, expect, it } from 'vitest';
import { setBounded } from '../../../lambda/core/bounded-map.js';
import { DEFAULT_BREAKER_POLICY } from '../../../lambda/core/breaker/breaker-policy.js';
import { createMemoryBreakerStore } from '../../../lambda/stores/memory-breaker-store.js';

describe('bounded per-process state', () => {
  it('forgets the oldest key past the limit, and keeps updating known keys in place', () => {
    const map = new Map<string, number>();
    for (const [key, value] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ] as const)
      setBounded(map, key, value, 2);
    expect([...map.keys()]).toEqual(['b', 'c']);
    setBounded(map, 'b', 20, 2);
    expect([...map]).toEqual([
      ['b', 20],
      ['c', 3],
    ]);
  });

  it('keeps the memory store to PIPELINE_STATE_LIMIT pipelines however many ad-hoc chains arrive', async () => {
    const store = createMemoryBreakerStore();
    const sample = { at: 1, outcome: 'ok' as const };
    for (let i = 0; i < 10_050; i++) await store.record(`chain:m${i}`, 'a', sample, DEFAULT_BREAKER_POLICY);
    expect((await store.readPipeline('chain:m0')).size).toBe(0);
    expect((await store.readPipeline('chain:m10049')).size).toBe(1);
  });
});
