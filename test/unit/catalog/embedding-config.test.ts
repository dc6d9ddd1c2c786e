import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';
import { createCatalog } from '../../../lambda/core/catalog/catalog.js';

const PROVIDERS = {
  openai: { type: 'openai', baseURL: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY' },
  vertex: { type: 'vertex', project: 'acme-prod', location: 'us-central1', credentialsFile: './sa.json' },
  bedrock: { type: 'bedrock', region: 'us-east-1' },
};
const MODELS = {
  small: { provider: 'openai', model: 'text-embedding-3-small', dimensions: 1536 },
  ada: { provider: 'openai', model: 'text-embedding-ada-002', dimensions: 1536 },
  large: { provider: 'openai', model: 'text-embedding-3-large', dimensions: 3072 },
  gecko: { provider: 'vertex', model: 'text-embedding-005', dimensions: 768 },
  chat: { provider: 'openai', model: 'gpt-4o-mini' },
};

const catalogFor = (pipelines: Record<string, { chain: string }>, models: object = MODELS) =>
  createCatalog(parseConfig({ providers: PROVIDERS, models, pipelines }));

describe('embedding models in the config', () => {
  it('accepts a chain whose embedding models share their dimensions, on OpenAI-compatible and vertex providers', () => {
    const catalog = catalogFor({ index: { chain: 'small,ada' }, gcp: { chain: 'gecko' } });
    expect(catalog.models.get('small')?.dimensions).toBe(1536);
    expect(catalog.models.get('chat')?.dimensions).toBeUndefined();
  });

  it('refuses a chain that mixes embedding spaces, naming the pipeline and each model’s dimensions', () => {
    expect(() => catalogFor({ index: { chain: 'small,(ada|large)' } })).toThrow(
      "pipelines.index.chain: 'small,(ada|large)' mixes embedding spaces (small: 1536, ada: 1536, large: 3072 dimensions)",
    );
  });

  it('refuses a chain that mixes embedding models with chat models', () => {
    expect(() => catalogFor({ index: { chain: 'small,chat' } })).toThrow(
      "pipelines.index.chain: 'small,chat' mixes embedding models (small) with chat models (chat)",
    );
  });

  it('refuses dimensions on a provider family without embeddings, for the model and for its routes', () => {
    expect(() =>
      catalogFor(
        {},
        { titan: { provider: 'bedrock', model: 'amazon.titan-embed-text-v2:0', dimensions: 1024 } },
      ),
    ).toThrow(
      'models.titan.provider: a bedrock provider serves no embeddings; a model with dimensions needs one of type openai or vertex',
    );
    expect(() => catalogFor({}, { small: { ...MODELS.small, routes: [{ provider: 'bedrock' }] } })).toThrow(
      'models.small.routes[0].provider: a bedrock provider serves no embeddings',
    );
  });

  it('refuses dimensions that are not a positive whole number', () => {
    expect(() => catalogFor({}, { small: { ...MODELS.small, dimensions: 0 } })).toThrow(
      /models\.small\.dimensions/,
    );
    expect(() => catalogFor({}, { small: { ...MODELS.small, dimensions: 65_537 } })).toThrow(
      /models\.small\.dimensions/,
    );
    expect(
      catalogFor({}, { small: { ...MODELS.small, dimensions: 65_536 } }).models.get('small')?.dimensions,
    ).toBe(65_536);
  });
});

describe('vertex providers in the config', () => {
  const vertex = (fields: object) =>
    parseConfig({
      providers: { v: { type: 'vertex', project: 'acme-prod', location: 'us-central1', ...fields } },
      models: {},
    });

  it('fills the token settings: refresh five minutes before expiry, ten seconds for the token endpoint', () => {
    expect(vertex({ apiKeyEnv: 'GOOGLE_SA_JSON' }).providers.v).toMatchObject({
      refreshBeforeExpiryMs: 300_000,
      tokenTimeoutMs: 10_000,
    });
  });

  it('needs a place for the service-account key', () => {
    expect(() => vertex({})).toThrow(
      'providers.v.apiKeySecret: needs the service-account key: apiKeyEnv or credentialsFile (local), apiKeySecret (AWS)',
    );
  });

  it.each([
    ['project', { project: 'Acme_Prod' }],
    ['location', { location: 'mars' }],
  ])('names a bad %s', (field, fields) => {
    expect(() => vertex({ apiKeyEnv: 'K', ...fields })).toThrow(new RegExp(`providers\\.v\\.${field}`));
  });
});
