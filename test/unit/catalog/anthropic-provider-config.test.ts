import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';
import { createCatalog } from '../../../lambda/core/catalog/catalog.js';
import { ConfigError } from '../../../lambda/core/errors.js';

const withAnthropic = (provider: Record<string, unknown>) => ({
  providers: { anthropic: { type: 'anthropic', ...provider } },
  models: { claude: { provider: 'anthropic', model: 'claude-haiku-4-5' } },
});

function pathOf(raw: unknown): string {
  try {
    parseConfig(raw);
  } catch (error) {
    if (error instanceof ConfigError) return error.path;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('the anthropic provider type', () => {
  it("fills Anthropic's API root and a max_tokens of 4096 when the file names neither", () => {
    const config = parseConfig(withAnthropic({ apiKeyEnv: 'ANTHROPIC_API_KEY' }));
    expect(config.providers.anthropic).toStrictEqual({
      type: 'anthropic',
      baseURL: 'https://api.anthropic.com',
      apiKeyEnv: 'ANTHROPIC_API_KEY',
      maxTokens: 4_096,
    });
    expect(createCatalog(config).models.get('claude')?.provider.type).toBe('anthropic');
  });

  it.each([
    ['a max_tokens default of 0', { maxTokens: 0 }, 'providers.anthropic.maxTokens'],
    ['a base URL that is not http(s)', { baseURL: 'ftp://x' }, 'providers.anthropic.baseURL'],
    [
      'an apiKeySecret that is no SSM path or secret name',
      { apiKeySecret: 'bad name!' },
      'providers.anthropic.apiKeySecret',
    ],
    ['a Bedrock field', { region: 'us-east-1' }, 'providers.anthropic'],
  ])('refuses %s, naming the field', (_label, provider, path) => {
    expect(pathOf(withAnthropic(provider)).startsWith(path)).toBe(true);
  });
});
