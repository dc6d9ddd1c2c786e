import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';
import { createCatalog } from '../../../lambda/core/catalog/catalog.js';

const minimal = {
  providers: { fake: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1' } },
  models: { a: { provider: 'fake', model: 'model-a' } },
};

const withBreaker = (breaker: Record<string, unknown>) => parseConfig({ ...minimal, breaker });

describe('breaker recovery config', () => {
  it('a pipeline chooses the ramp and its own steps; the rest comes from the top-level block', () => {
    const config = parseConfig({
      ...minimal,
      breaker: { probeIntervalMs: 10_000 },
      pipelines: {
        slow: { chain: 'a', breaker: { recovery: 'ramp', rampSteps: [5, 50, 100] } },
        plain: { chain: 'a' },
      },
    });
    const catalog = createCatalog(config);
    expect(catalog.policy('slow').breaker).toMatchObject({
      recovery: 'ramp',
      probeIntervalMs: 10_000,
      probeSuccesses: 3,
      rampSteps: [5, 50, 100],
      rampStepMs: 60_000,
    });
    expect(catalog.policy('plain').breaker.recovery).toBe('window');
  });

  it.each([
    [{ recovery: 'half-open' }, /breaker\.recovery/],
    [{ rampSteps: [10, 10, 100] }, /breaker\.rampSteps: must rise step by step/],
    [{ rampSteps: [50, 25] }, /breaker\.rampSteps: must rise step by step/],
    [{ rampSteps: [] }, /breaker\.rampSteps/],
    [{ rampSteps: [10, 101] }, /breaker\.rampSteps\[1\]/],
    [{ rampSteps: [0, 100] }, /breaker\.rampSteps\[0\]/],
    [{ probeSuccesses: 0 }, /breaker\.probeSuccesses/],
    [{ probeIntervalMs: 1.5 }, /breaker\.probeIntervalMs/],
    [{ rampStepMs: -1 }, /breaker\.rampStepMs/],
  ])('refuses %j, naming the field', (breaker, message) => {
    expect(() => withBreaker(breaker)).toThrow(message);
  });

  it('accepts a ramp that stops short of 100 % (the breaker closes after its last step)', () => {
    expect(withBreaker({ recovery: 'ramp', rampSteps: [20, 60] }).breaker.rampSteps).toEqual([20, 60]);
  });
});
