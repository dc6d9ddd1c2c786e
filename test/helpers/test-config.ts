import type { SwitchyardConfig } from '../../lambda/config/switchyard-config.js';
import { parseConfig } from '../../lambda/config/switchyard-config.js';

/** A small valid config: models a, b, c on two providers, one pipeline. Override parts as needed. */
export function testConfig(overrides: Record<string, unknown> = {}): SwitchyardConfig {
  return parseConfig({
    providers: {
      one: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1', apiKeyEnv: 'ONE_KEY' },
      two: { type: 'bedrock', region: 'us-east-1' },
    },
    models: {
      a: {
        provider: 'one',
        model: 'raw-a',
        aliases: ['alpha'],
        price: { inputPerMTok: 1, outputPerMTok: 2 },
      },
      b: { provider: 'one', model: 'shared-raw' },
      c: { provider: 'two', model: 'shared-raw', timeoutMs: 5_000 },
    },
    pipelines: { 'comment-filter': { chain: '(a|b),c', maxAttempts: 4, breaker: { openMs: 60_000 } } },
    ...overrides,
  });
}

/** Models a, b, c on one OpenAI-compatible provider, and a pipeline `p` = `(a|b),c`. */
export const ABC_CONFIG = {
  providers: { fake: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1' } },
  models: {
    a: { provider: 'fake', model: 'model-a' },
    b: { provider: 'fake', model: 'model-b' },
    c: { provider: 'fake', model: 'model-c' },
  },
  pipelines: { p: { chain: '(a|b),c' } },
};
