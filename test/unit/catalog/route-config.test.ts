import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';
import { createCatalog } from '../../../lambda/core/catalog/catalog.js';

const providers = {
  openai: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1' },
  azure: { type: 'openai', baseURL: 'http://127.0.0.1:9/azure' },
  second: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1' },
};
const withModel = (model: Record<string, unknown>, pipeline: Record<string, unknown> = {}) =>
  parseConfig({
    providers,
    models: { gpt: model, small: { provider: 'openai', model: 'mini' } },
    pipelines: { p: { chain: 'gpt,small', ...pipeline } },
  });

describe('config: routes of one model', () => {
  it('reads a model with one provider as one route keyed by the model key', () => {
    const catalog = createCatalog(withModel({ provider: 'openai', model: 'gpt-4o' }));
    expect(catalog.models.get('gpt')?.routes.map((r) => r.key)).toEqual(['gpt']);
    expect([...catalog.routes.keys()]).toEqual(['gpt', 'small']);
  });

  it('fills a route’s unset fields from its model, in the order given', () => {
    const catalog = createCatalog(
      withModel({
        provider: 'openai',
        model: 'gpt-4o',
        timeoutMs: 8_000,
        price: { inputPerMTok: 2.5, outputPerMTok: 10 },
        routes: [
          { provider: 'azure', model: 'gpt-4o-deploy', price: { inputPerMTok: 2, outputPerMTok: 8 } },
          { provider: 'second', timeoutMs: 3_000 },
        ],
      }),
    );
    const routes = catalog.models.get('gpt')?.routes ?? [];
    expect(
      routes.map((r) => [r.key, r.providerName, r.model, r.timeouts.totalMs, r.price?.inputPerMTok]),
    ).toEqual([
      ['gpt', 'openai', 'gpt-4o', 8_000, 2.5],
      ['gpt~azure', 'azure', 'gpt-4o-deploy', 8_000, 2],
      ['gpt~second', 'second', 'gpt-4o', 3_000, 2.5],
    ]);
    expect(catalog.routes.get('gpt~azure')?.modelKey).toBe('gpt');
  });

  it.each([
    [{ routes: [{ provider: 'nosuch' }] }, /models\.gpt\.routes\[0\]\.provider: unknown provider 'nosuch'/],
    [
      { routes: [{ provider: 'azure' }, { provider: 'azure' }] },
      /models\.gpt\.routes\[1\]\.provider: 'azure' is already a route/,
    ],
    [{ routes: [{ provider: 'openai' }] }, /models\.gpt\.routes\[0\]\.provider: 'openai' is already a route/],
  ])('names the route of a bad provider: %j', (extra, message) => {
    expect(() => createCatalog(withModel({ provider: 'openai', model: 'gpt-4o', ...extra }))).toThrow(
      message,
    );
  });

  it.each([
    [{ routes: [{ provider: 'a b' }] }, /models\.gpt\.routes\[0\]\.provider: may contain only letters/],
    [{ routes: [{ provider: 'azure', timeoutMs: 0 }] }, /models\.gpt\.routes\[0\]\.timeoutMs/],
    [
      { routes: [{ provider: 'azure', price: { inputPerMTok: -1, outputPerMTok: 1 } }] },
      /models\.gpt\.routes\[0\]\.price\.inputPerMTok/,
    ],
    [{ routes: [{ provider: 'azure', region: 'x' }] }, /models\.gpt\.routes\[0\].*region/],
    [{ routes: {} }, /models\.gpt\.routes/],
  ])('refuses a bad route field with its path: %j', (extra, message) => {
    expect(() => withModel({ provider: 'openai', model: 'gpt-4o', ...extra })).toThrow(message);
  });
});

describe('config: substitution limits', () => {
  it('defaults to substitution allowed and no maxTier, in the schema', () => {
    const config = withModel({ provider: 'openai', model: 'gpt-4o' });
    expect(config.pipelines.p).toMatchObject({ substitution: 'allow' });
    expect(config.pipelines.p?.maxTier).toBeUndefined();
    expect(createCatalog(config).policy('p').route).toMatchObject({
      substitution: 'allow',
      maxTier: undefined,
    });
    expect(createCatalog(config).policy('ad-hoc').route).toMatchObject({ substitution: 'allow' });
  });

  it('carries a pipeline’s limits into its policy', () => {
    const catalog = createCatalog(
      withModel({ provider: 'openai', model: 'gpt-4o' }, { substitution: 'forbid', maxTier: 1 }),
    );
    expect(catalog.policy('p').route).toMatchObject({ substitution: 'forbid', maxTier: 1 });
  });

  it.each([
    [{ substitution: 'never' }, /pipelines\.p\.substitution/],
    [{ maxTier: 0 }, /pipelines\.p\.maxTier/],
    [{ maxTier: 1.5 }, /pipelines\.p\.maxTier/],
    [{ maxTier: '2' }, /pipelines\.p\.maxTier/],
  ])('refuses a bad limit with its path: %j', (pipeline, message) => {
    expect(() => withModel({ provider: 'openai', model: 'gpt-4o' }, pipeline)).toThrow(message);
  });
});
