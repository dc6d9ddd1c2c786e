import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';
import { createCatalog } from '../../../lambda/core/catalog/catalog.js';
import { bedrockTakesPrefill } from '../../../lambda/families/bedrock/bedrock-prefill.js';
import { createRouteModels } from '../../../lambda/families/create-route-models.js';

describe('which models take a prefill', () => {
  it.each([
    ['anthropic.claude-3-5-haiku-20241022-v1:0', true],
    ['us.anthropic.claude-sonnet-4-20250514-v1:0', true],
    ['meta.llama3-3-70b-instruct-v1:0', false],
    ['amazon.nova-pro-v1:0', false],
  ])('Bedrock %s: %s', (model, takes) => {
    expect(bedrockTakesPrefill(model)).toBe(takes);
  });

  it('each route carries its family’s capability, narrowed per model', () => {
    const config = parseConfig({
      providers: {
        oa: { type: 'openai', baseURL: 'http://127.0.0.1:1/v1' },
        an: { type: 'anthropic' },
        br: { type: 'bedrock', region: 'us-east-1' },
        vx: { type: 'vertex', project: 'my-project', location: 'us-central1', apiKeyEnv: 'SA_JSON' },
      },
      models: {
        gpt: { provider: 'oa', model: 'gpt-x' },
        claude: { provider: 'an', model: 'claude-x' },
        claudeBr: { provider: 'br', model: 'anthropic.claude-x-v1:0' },
        llamaBr: { provider: 'br', model: 'meta.llama-x' },
        gemini: { provider: 'vx', model: 'google/gemini-x' },
      },
    });
    const access = { apiKey: () => undefined, keyHint: () => 'KEY' };
    const routes = createRouteModels(createCatalog(config).routes.values(), access);
    const prefill = Object.fromEntries([...routes].map(([key, route]) => [key, route.prefill]));
    expect(prefill).toEqual({ gpt: false, claude: true, claudeBr: true, llamaBr: false, gemini: false });
  });
});
