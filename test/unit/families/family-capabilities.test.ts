import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';
import { CAPABILITIES } from '../../../lambda/core/capabilities/capability.js';
import { createCatalog } from '../../../lambda/core/catalog/catalog.js';
import { createRouteModels } from '../../../lambda/families/create-route-models.js';
import { PROVIDER_FAMILIES } from '../../../lambda/families/registry.js';

const access = { apiKey: () => 'k', keyHint: () => 'K' };
const providers = {
  oa: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1' },
  br: { type: 'bedrock', region: 'us-east-1' },
};

describe('family capabilities', () => {
  it('declares every capability in every family, as a boolean', () => {
    for (const family of PROVIDER_FAMILIES) {
      expect(Object.keys(family.capabilities).sort()).toEqual([...CAPABILITIES].sort());
    }
  });

  it.each([
    [
      'openai',
      { imageUrls: true, documentUrls: false, toolResultMedia: false, logprobs: true, prefill: false },
    ],
    [
      'vertex',
      { imageUrls: false, documents: false, toolResultMedia: false, logprobs: false, prefill: false },
    ],
    [
      'anthropic',
      { imageUrls: true, documentUrls: true, toolResultMedia: true, logprobs: false, prefill: true },
    ],
    [
      'bedrock',
      { imageUrls: false, documentUrls: false, toolResultMedia: true, logprobs: false, prefill: true },
    ],
  ])('gives the %s family what its API carries', (type, expected) => {
    const family = PROVIDER_FAMILIES.find((f) => f.type === type);
    expect(family?.capabilities).toMatchObject({ images: true, tools: true, ...expected });
  });

  it("puts a model's overrides over each of its routes' family values", () => {
    const config = parseConfig({
      providers,
      models: {
        text: { provider: 'oa', model: 'm', capabilities: { images: false }, routes: [{ provider: 'br' }] },
        plain: { provider: 'br', model: 'm' },
      },
    });
    const routes = createRouteModels(createCatalog(config).routes.values(), access);
    expect(routes.get('text')?.capabilities).toMatchObject({
      images: false,
      imageUrls: true,
      logprobs: true,
    });
    expect(routes.get('text~br')?.capabilities).toMatchObject({
      images: false,
      imageUrls: false,
      logprobs: false,
    });
    expect(routes.get('plain')?.capabilities).toMatchObject({ images: true, imageUrls: false });
  });

  it('refuses an unknown capability in the config, naming the field', () => {
    expect(() =>
      parseConfig({
        providers,
        models: { m: { provider: 'oa', model: 'm', capabilities: { vision: true } } },
      }),
    ).toThrow(/models\.m\.capabilities/);
  });
});
