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
    [{ probeSchedule: [{ untilMs: 60_000 }] }, /breaker\.probeSchedule\[0\]\.everyMs/],
    [{ probeSchedule: [{ untilMs: 60_000, everyMs: 0 }] }, /breaker\.probeSchedule\[0\]\.everyMs/],
    [
      {
        probeSchedule: [
          { untilMs: 60_000, everyMs: 5_000 },
          { untilMs: 60_000, everyMs: 15_000 },
        ],
      },
      /breaker\.probeSchedule: steps must end later/,
    ],
    [{ probeSchedule: [{ untilMs: 60_000, everyMs: 5_000, jitter: 1 }] }, /breaker\.probeSchedule\[0\]/],
    [{ probeLeaseMs: 0 }, /breaker\.probeLeaseMs/],
  ])('refuses %j, naming the field', (breaker, message) => {
    expect(() => withBreaker(breaker)).toThrow(message);
  });

  it('accepts a ramp that stops short of 100 % (the breaker closes after its last step)', () => {
    expect(withBreaker({ recovery: 'ramp', rampSteps: [20, 60] }).breaker.rampSteps).toEqual([20, 60]);
  });

  it('a pipeline may set its own probe schedule; `[]` is the fixed slot of probeIntervalMs', () => {
    const config = parseConfig({
      ...minimal,
      pipelines: {
        fast: {
          chain: 'a',
          breaker: { recovery: 'ramp', probeSchedule: [{ untilMs: 30_000, everyMs: 2_000 }] },
        },
        fixed: { chain: 'a', breaker: { recovery: 'ramp', probeSchedule: [] } },
      },
    });
    const catalog = createCatalog(config);
    expect(catalog.policy('fast').breaker.probeSchedule).toEqual([{ untilMs: 30_000, everyMs: 2_000 }]);
    expect(catalog.policy('fixed').breaker.probeSchedule).toEqual([]);
    expect(catalog.policy('fixed').breaker.probeLeaseMs).toBe(30_000);
  });
});

describe('capacity config', () => {
  const twoRoutes = {
    providers: {
      fake: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1' },
      other: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1' },
    },
    models: { a: { provider: 'fake', model: 'model-a', routes: [{ provider: 'other' }] } },
  };
  const withCapacity = (capacity: Record<string, unknown>) => parseConfig({ ...twoRoutes, capacity });

  it('accepts bulkheads on a provider and on a further route, and a quota on an account route', () => {
    const config = withCapacity({
      providers: { fake: { maxInFlight: 5 } },
      routes: { 'a~other': { maxInFlight: 2 } },
      quotas: { other: { 'model-a': { requestsPerMinute: 60, tokensPerMinute: 10_000 } } },
    });
    expect(config.capacity).toMatchObject({ shared: false, leaseMs: 120_000 });
    expect(config.capacity.routes['a~other']).toEqual({ maxInFlight: 2 });
  });

  it.each([
    [{ providers: { nobody: { maxInFlight: 1 } } }, /capacity\.providers\.nobody: names no provider/],
    [{ routes: { b: { maxInFlight: 1 } } }, /capacity\.routes\.b: names no route/],
    [{ routes: { a: { maxInFlight: 0 } } }, /capacity\.routes\.a\.maxInFlight/],
    [
      { quotas: { fake: { 'model-x': { requestsPerMinute: 1 } } } },
      /capacity\.quotas\.fake\.model-x: no model calls/,
    ],
    [{ quotas: { fake: { 'model-a': {} } } }, /capacity\.quotas\.fake\.model-a: declare requestsPerMinute/],
    [{ leaseMs: 10 }, /capacity\.leaseMs/],
  ])('refuses %j, naming the field', (capacity, message) => {
    expect(() => withCapacity(capacity)).toThrow(message);
  });
});
