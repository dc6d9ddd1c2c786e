import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';
import { ConfigError } from '../../../lambda/core/errors.js';

const base = {
  providers: { p: { type: 'openai', baseURL: 'https://example.test/v1' } },
  models: { m: { provider: 'p', model: 'raw' } },
  pipelines: { digest: { chain: 'm' } },
};
const withHook = (url: string, extra: Record<string, unknown> = {}) => ({
  ...base,
  ...extra,
  schedules: {
    nightly: {
      expression: 'rate(1 day)',
      pipeline: 'digest',
      jobs: [{ id: 'j', request: { messages: [{ role: 'user', content: 'x' }] } }],
      deliver: { url, secretEnv: 'HOOK' },
    },
  },
});
const messageOf = (raw: unknown): string => {
  try {
    parseConfig(raw);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  return '';
};

describe('security settings in the config', () => {
  it('refuses an http:// webhook beyond loopback, naming the field', () => {
    expect(messageOf(withHook('http://hooks.example.test/x'))).toContain('schedules.nightly.deliver.url');
  });

  it.each([
    'https://hooks.example.test/x',
    'http://127.0.0.1:9000/x',
    'http://localhost/x',
    'http://[::1]/x',
  ])('accepts the webhook URL %s', (url) => {
    expect(messageOf(withHook(url))).toBe('');
  });

  it('accepts http:// beyond loopback when webhooks.allowHttp is true', () => {
    expect(messageOf(withHook('http://hooks.internal.test/x', { webhooks: { allowHttp: true } }))).toBe('');
  });

  it('fills webhook, limit and auth defaults, and keeps operator keys and readers', () => {
    const config = parseConfig({
      ...withHook('https://h.test/x'),
      limits: {},
      webhooks: {},
      auth: { keys: {}, operatorKeys: ['ops'] },
    });
    expect(config.limits).toEqual({
      maxMessages: 1_000,
      maxOutputTokens: 32_768,
      maxEchoChars: 128,
      maxJsonDepth: 64,
      maxUpstreamBodyBytes: 8_388_608,
      maxUpstreamEventBytes: 1_048_576,
    });
    expect(config.webhooks).toEqual({ allowHttp: false, maxResponseBytes: 4_096 });
    expect(config.auth?.operatorKeys).toEqual(['ops']);
  });

  it.each([
    ['a zero maxMessages', { ...base, limits: { maxMessages: 0 } }, 'limits.maxMessages'],
    [
      'a zero maxUpstreamBodyBytes',
      { ...base, limits: { maxUpstreamBodyBytes: 0 } },
      'limits.maxUpstreamBodyBytes',
    ],
    [
      'a maxUpstreamEventBytes over 1 GiB',
      { ...base, limits: { maxUpstreamEventBytes: 1_073_741_825 } },
      'limits.maxUpstreamEventBytes',
    ],
    [
      'a fractional maxUpstreamBodyBytes',
      { ...base, limits: { maxUpstreamBodyBytes: 1.5 } },
      'limits.maxUpstreamBodyBytes',
    ],
    [
      'a model maxOutputTokens given as text',
      { ...base, models: { m: { provider: 'p', model: 'r', maxOutputTokens: '9' } } },
      'models.m.maxOutputTokens',
    ],
    [
      'an operator key name with a space',
      { ...base, auth: { keys: {}, operatorKeys: ['a b'] } },
      'auth.operatorKeys[0]',
    ],
    ['a maxJsonDepth over 256', { ...base, limits: { maxJsonDepth: 257 } }, 'limits.maxJsonDepth'],
    ['a maxJsonDepth under 8', { ...base, limits: { maxJsonDepth: 7 } }, 'limits.maxJsonDepth'],
  ])('names the field for %s', (_label, raw, field) => {
    expect(messageOf(raw)).toContain(field);
  });

  it('takes maxJsonDepth at each end of its range', () => {
    expect(messageOf({ ...base, limits: { maxJsonDepth: 256 } })).toBe('');
    expect(messageOf({ ...base, limits: { maxJsonDepth: 8 } })).toBe('');
  });
});
