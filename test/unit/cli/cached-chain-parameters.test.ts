import { describe, expect, it } from 'vitest';
import { createCachedChainParameters } from '../../../lambda/aws/cached-chain-parameters.js';
import { createFakeClock } from '../../helpers/fake-clock.js';

function countingStore(values: (string | Error)[]) {
  let reads = 0;
  return {
    reads: () => reads,
    async get() {
      const value = values[Math.min(reads, values.length - 1)];
      reads += 1;
      if (value instanceof Error) throw value;
      return value;
    },
  };
}

describe('the overrides of serve --ssm', () => {
  it('reads a pipeline at most once per cacheMs, and again exactly when it has passed', async () => {
    const clock = createFakeClock();
    const store = countingStore(['a', 'b']);
    const cached = createCachedChainParameters(store, 30_000, clock);
    expect(await cached.get('p')).toBe('a');
    clock.advance(29_999);
    expect(await cached.get('p')).toBe('a');
    expect(store.reads()).toBe(1);
    clock.advance(1);
    expect(await cached.get('p')).toBe('b');
    expect(store.reads()).toBe(2);
  });

  it('keeps the last value while SSM fails, and lets the first failure through', async () => {
    const clock = createFakeClock();
    const failing = createCachedChainParameters(
      countingStore([new Error('ThrottlingException')]),
      1000,
      clock,
    );
    await expect(failing.get('p')).rejects.toThrow('ThrottlingException');
    const flaky = createCachedChainParameters(
      countingStore(['a', new Error('ThrottlingException')]),
      1000,
      clock,
    );
    expect(await flaky.get('p')).toBe('a');
    clock.advance(1000);
    expect(await flaky.get('p')).toBe('a');
  });
});
