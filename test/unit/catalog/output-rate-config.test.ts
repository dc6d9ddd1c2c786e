import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';
import { createCatalog } from '../../../lambda/core/catalog/catalog.js';

const providers = {
  openai: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1' },
  azure: { type: 'openai', baseURL: 'http://127.0.0.1:9/azure' },
  west: { type: 'openai', baseURL: 'http://127.0.0.1:9/west' },
};
const catalogWith = (model: Record<string, unknown>) =>
  createCatalog(
    parseConfig({
      providers,
      models: { gpt: { provider: 'openai', model: 'gpt-4o', ...model } },
      pipelines: {},
    }),
  );
const ratesOf = (model: Record<string, unknown>) =>
  catalogWith(model)
    .models.get('gpt')
    ?.routes.map((r) => [r.key, r.timeouts.outputTokensPerSec]);

describe('config: a route’s expected output rate (timeouts.outputTokensPerSec)', () => {
  it('carries no rate when none is set (the router expects its default)', () => {
    expect(ratesOf({})).toEqual([['gpt', undefined]]);
    expect(Object.keys(catalogWith({}).models.get('gpt')?.routes[0]?.timeouts ?? {})).not.toContain(
      'outputTokensPerSec',
    );
  });

  it('gives a further route its model’s rate, even when the route sets its own timeoutMs', () => {
    const model = {
      timeouts: { outputTokensPerSec: 12.5 },
      routes: [
        { provider: 'azure', timeoutMs: 8_000 },
        { provider: 'west', timeouts: { outputTokensPerSec: 40 } },
      ],
    };
    expect(ratesOf(model)).toEqual([
      ['gpt', 12.5],
      ['gpt~azure', 12.5],
      ['gpt~west', 40],
    ]);
  });

  it.each([
    [{ timeouts: { outputTokensPerSec: 0 } }, 'models.gpt.timeouts.outputTokensPerSec'],
    [{ timeouts: { outputTokensPerSec: -5 } }, 'models.gpt.timeouts.outputTokensPerSec'],
    [{ timeouts: { outputTokensPerSec: 1_000_001 } }, 'models.gpt.timeouts.outputTokensPerSec'],
    [{ timeouts: { outputTokensPerSec: '20' } }, 'models.gpt.timeouts.outputTokensPerSec'],
  ])('names the field of a bad rate: %j', (model, field) => {
    expect(() => catalogWith(model)).toThrow(field);
  });

  it('accepts the largest rate', () => {
    expect(ratesOf({ timeouts: { outputTokensPerSec: 1_000_000 } })).toEqual([['gpt', 1_000_000]]);
  });
});
