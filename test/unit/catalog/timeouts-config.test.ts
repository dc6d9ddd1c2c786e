import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';
import { createCatalog } from '../../../lambda/core/catalog/catalog.js';

const providers = {
  openai: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1' },
  azure: { type: 'openai', baseURL: 'http://127.0.0.1:9/azure' },
};
const catalogWith = (model: Record<string, unknown>) =>
  createCatalog(
    parseConfig({
      providers,
      models: { gpt: { provider: 'openai', model: 'gpt-4o', ...model } },
      pipelines: {},
    }),
  );
const timeoutsOf = (model: Record<string, unknown>) =>
  catalogWith(model)
    .models.get('gpt')
    ?.routes.map((r) => [r.key, r.timeouts]);

describe('config: layered timeouts', () => {
  it('gives every limit the default timeoutMs when a model sets nothing', () => {
    expect(timeoutsOf({})).toEqual([
      ['gpt', { connectMs: 10_000, firstByteMs: 10_000, totalMs: 10_000, idleMs: 10_000 }],
    ]);
  });

  it('keeps the meaning of a single timeoutMs: every limit is that value', () => {
    expect(timeoutsOf({ timeoutMs: 4_000 })).toEqual([
      ['gpt', { connectMs: 4_000, firstByteMs: 4_000, totalMs: 4_000, idleMs: 4_000 }],
    ]);
  });

  it('takes each limit a model sets, and timeoutMs for the rest', () => {
    expect(timeoutsOf({ timeoutMs: 30_000, timeouts: { connectMs: 3_000, firstByteMs: 10_000 } })).toEqual([
      ['gpt', { connectMs: 3_000, firstByteMs: 10_000, totalMs: 30_000, idleMs: 30_000 }],
    ]);
  });

  it('gives a route the model’s limits, its own timeoutMs all at once, its own timeouts field by field', () => {
    const model = {
      timeoutMs: 30_000,
      timeouts: { connectMs: 3_000, firstByteMs: 10_000 },
      routes: [{ provider: 'azure', timeouts: { firstByteMs: 5_000 } }],
    };
    expect(timeoutsOf(model)?.[1]).toEqual([
      'gpt~azure',
      { connectMs: 3_000, firstByteMs: 5_000, totalMs: 30_000, idleMs: 30_000 },
    ]);
    const own = { ...model, routes: [{ provider: 'azure', timeoutMs: 8_000, timeouts: { idleMs: 2_000 } }] };
    expect(timeoutsOf(own)?.[1]).toEqual([
      'gpt~azure',
      { connectMs: 8_000, firstByteMs: 8_000, totalMs: 8_000, idleMs: 2_000 },
    ]);
  });

  it.each([
    [
      { timeouts: { firstByteMs: 12_000 } },
      'models.gpt.timeouts.firstByteMs: 12000 ms exceeds totalMs (10000 ms)',
    ],
    [
      { timeouts: { connectMs: 5_001, firstByteMs: 5_000, totalMs: 20_000 } },
      'models.gpt.timeouts.connectMs: 5001 ms exceeds firstByteMs (5000 ms)',
    ],
    [
      { routes: [{ provider: 'azure', timeouts: { firstByteMs: 2_000, totalMs: 1_000 } }] },
      'models.gpt.routes[0].timeouts.firstByteMs: 2000 ms exceeds totalMs (1000 ms)',
    ],
  ])('refuses limits out of order, naming the field: %j', (model, message) => {
    expect(() => catalogWith(model)).toThrow(message);
  });

  it('keeps an unset limit within the one around it', () => {
    expect(timeoutsOf({ timeouts: { firstByteMs: 2_000 } })?.[0]?.[1]).toEqual({
      connectMs: 2_000,
      firstByteMs: 2_000,
      totalMs: 10_000,
      idleMs: 10_000,
    });
    const route = {
      timeouts: { firstByteMs: 2_000 },
      routes: [{ provider: 'azure', timeouts: { totalMs: 1_000 } }],
    };
    expect(timeoutsOf(route)?.[1]?.[1]).toEqual({
      connectMs: 1_000,
      firstByteMs: 1_000,
      totalMs: 1_000,
      idleMs: 10_000,
    });
  });

  it('accepts a first byte limit equal to the total (the boundary)', () => {
    expect(timeoutsOf({ timeouts: { connectMs: 10_000, firstByteMs: 10_000 } })?.[0]?.[1]).toMatchObject({
      firstByteMs: 10_000,
      totalMs: 10_000,
    });
  });

  it.each([
    [{ timeouts: { firstByteMs: 0 } }, 'models.gpt.timeouts.firstByteMs'],
    [{ timeouts: { idleMs: 1.5 } }, 'models.gpt.timeouts.idleMs'],
    [{ timeouts: { firstByte: 100 } }, 'models.gpt.timeouts'],
    [{ routes: [{ provider: 'azure', timeouts: { totalMs: -1 } }] }, 'models.gpt.routes[0].timeouts.totalMs'],
  ])('names the field of a bad value: %j', (model, field) => {
    expect(() => catalogWith(model)).toThrow(field);
  });
});
