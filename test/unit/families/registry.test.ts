import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';
import { createCatalog } from '../../../lambda/core/catalog/catalog.js';
import { ConfigError } from '../../../lambda/core/errors.js';
import { EMBEDDING_PROVIDER_TYPES, KEYED_PROVIDER_TYPES } from '../../../lambda/families/capabilities.js';
import { createRouteModels } from '../../../lambda/families/create-route-models.js';
import { familyOf, PROVIDER_FAMILIES } from '../../../lambda/families/registry.js';
import { catalogRoutes } from '../../../lambda/wiring/trace-ledger.js';

/** A minimal valid provider entry of each registered type. */
const SAMPLES: Record<string, Record<string, unknown>> = {
  openai: { type: 'openai', baseURL: 'http://127.0.0.1:1/v1' },
  bedrock: { type: 'bedrock', region: 'us-east-1' },
  vertex: { type: 'vertex', project: 'my-project', location: 'us-central1', apiKeyEnv: 'SA_JSON' },
  anthropic: { type: 'anthropic' },
};

const configOf = (provider: unknown) =>
  parseConfig({ providers: { p: provider }, models: { m: { provider: 'p', model: 'raw-id' } } });

const access = { apiKey: () => undefined, keyHint: () => 'SOME_KEY' };

describe('provider family registry', () => {
  it('registers each config type once', () => {
    const types = PROVIDER_FAMILIES.map((family) => family.type);
    expect(new Set(types).size).toBe(types.length);
    expect(types.sort()).toEqual(Object.keys(SAMPLES).sort());
  });

  it.each(Object.entries(SAMPLES))('resolves type %s to the one family that parses it', (type, provider) => {
    const config = configOf(provider);
    const parsed = config.providers.p;
    expect(parsed?.type).toBe(type);
    const family = familyOf(type);
    expect(family.type).toBe(type);
    expect(PROVIDER_FAMILIES.filter((f) => f.schema.safeParse(provider).success).map((f) => f.type)).toEqual([
      type,
    ]);
    // The family builds a callable model for a route of that type, without a network call.
    const models = createRouteModels(createCatalog(config).routes.values(), access);
    expect(typeof models.get('m')?.model.generate).toBe('function');
  });

  it('resolves every provider of the default config', () => {
    const raw: unknown = JSON.parse(readFileSync('lambda/config/default-config.json', 'utf8'));
    const config = parseConfig(raw);
    for (const provider of Object.values(config.providers))
      expect(familyOf(provider.type).type).toBe(provider.type);
  });

  it('refuses an unknown type with a config error naming the type field and the known types', () => {
    let thrown: unknown;
    try {
      configOf({ type: 'azure', baseURL: 'https://example.com' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).path).toBe('providers.p.type');
    expect((thrown as Error).message).toBe(
      "providers.p.type: invalid config: providers.p.type: Invalid discriminator value. Expected 'openai' | 'bedrock' | 'vertex' | 'anthropic'",
    );
  });

  it('throws naming the known families when asked for a type no family registers', () => {
    expect(() => familyOf('azure')).toThrow(
      "no provider family 'azure' (known: openai, bedrock, vertex, anthropic)",
    );
  });

  it('derives the capability lists from the family records', () => {
    expect(KEYED_PROVIDER_TYPES).toEqual(['openai', 'vertex', 'anthropic']);
    expect(EMBEDDING_PROVIDER_TYPES).toEqual(['openai', 'vertex']);
  });

  it("reports a family's well-known GenAI provider name in attempt spans, else the configured name", () => {
    const lookup = (type: string) =>
      catalogRoutes(createCatalog(configOf(SAMPLES[type])))('m', 'p')?.providerName;
    expect(lookup('bedrock')).toBe('aws.bedrock');
    expect(lookup('openai')).toBe('p');
    expect(lookup('anthropic')).toBe('p');
  });
});
