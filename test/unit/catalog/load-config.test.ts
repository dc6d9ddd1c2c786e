import { describe, expect, it } from 'vitest';
import { embeddedConfig } from '../../../lambda/config/config-file.js';
import { parseConfig, parseConfigText } from '../../../lambda/config/switchyard-config.js';
import { ConfigError } from '../../../lambda/core/errors.js';
import { testConfig } from '../../helpers/test-config.js';

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const valid = {
  providers: { p: { type: 'openai', baseURL: 'https://example.test/v1' } },
  models: { m: { provider: 'p', model: 'raw' } },
};

describe('config', () => {
  it('accepts the embedded default, which lists real providers and example pipelines', () => {
    const config = embeddedConfig();
    expect(Object.keys(config.providers)).toEqual(
      expect.arrayContaining(['openai', 'google', 'openrouter', 'together', 'bedrock']),
    );
    expect(Object.keys(config.pipelines).length).toBeGreaterThanOrEqual(3);
  });

  it.each([
    [
      'a provider without a type',
      { ...valid, providers: { p: { baseURL: 'https://x.test' } } },
      'providers.p.type',
    ],
    ['an unknown provider type', { ...valid, providers: { p: { type: 'azure' } } }, 'providers.p.type'],
    [
      'a base URL that is not http(s)',
      { ...valid, providers: { p: { type: 'openai', baseURL: 'ftp://x' } } },
      'providers.p.baseURL',
    ],
    [
      'a bad region',
      { ...valid, providers: { p: { type: 'bedrock', region: 'mars' } } },
      'providers.p.region',
    ],
    [
      'a timeout given as text',
      { ...valid, models: { m: { provider: 'p', model: 'r', timeoutMs: '10' } } },
      'models.m.timeoutMs',
    ],
    [
      'a negative price',
      {
        ...valid,
        models: { m: { provider: 'p', model: 'r', price: { inputPerMTok: -1, outputPerMTok: 0 } } },
      },
      'models.m.price.inputPerMTok',
    ],
    [
      'a misspelt pipeline setting',
      { ...valid, pipelines: { x: { chain: 'm', maxAtempts: 3 } } },
      'pipelines.x',
    ],
    ['a failure rate above 1', { ...valid, breaker: { failureRate: 30 } }, 'breaker.failureRate'],
    [
      'a model that names a missing provider',
      { ...valid, models: { m: { provider: 'nope', model: 'r' } } },
      'models.m.provider',
    ],
    [
      'an alias that names another model',
      {
        ...valid,
        models: { m: { provider: 'p', model: 'r' }, n: { provider: 'p', model: 's', aliases: ['m'] } },
      },
      'models.n.aliases[0]',
    ],
    [
      'a model key with a DSL character',
      { ...valid, models: { 'a|b': { provider: 'p', model: 'r' } } },
      'models',
    ],
    ['a missing models section', { providers: valid.providers }, 'models'],
  ])('rejects %s, naming the field', (_name, raw, path) => {
    const error = errorOf(() => parseConfig(raw));
    expect(error.path.startsWith(path)).toBe(true);
    expect(error.message).toContain(path);
  });

  it('names the file and the JSON problem when the text is not JSON', () => {
    const error = errorOf(() => parseConfigText('{"providers": ', '/etc/switchyard.json'));
    expect(error.message).toContain('/etc/switchyard.json is not valid JSON');
  });

  it('lists several problems in one message', () => {
    const error = errorOf(() => parseConfig({ providers: 1, models: 2 }));
    expect(error.message).toContain('providers');
    expect(error.message).toContain('models');
  });

  it('keeps a valid config as given', () => {
    expect(testConfig().pipelines['comment-filter']?.maxAttempts).toBe(4);
  });
});
