import { describe, expect, it } from 'vitest';
import { DEFAULT_BREAKER_POLICY } from '../../../lambda/core/breaker/breaker-policy.js';
import { createCatalog } from '../../../lambda/core/catalog/catalog.js';
import { ConfigError } from '../../../lambda/core/errors.js';
import { testConfig } from '../../helpers/test-config.js';

describe('catalog', () => {
  const catalog = createCatalog(testConfig());

  it.each([
    ['a model key', 'a', { kind: 'model', key: 'a' }],
    ['an alias', 'alpha', { kind: 'model', key: 'a' }],
    ['a unique raw provider id', 'raw-a', { kind: 'model', key: 'a' }],
    ['a raw id two models share', 'shared-raw', { kind: 'ambiguous', candidates: ['b', 'c'] }],
    ['an unknown name', 'zzz', { kind: 'unknown' }],
  ])('resolves %s', (_name, input, expected) => {
    expect(catalog.resolve(input)).toEqual(expected);
  });

  it('resolves chains through aliases and drops the duplicate', () => {
    const parsed = catalog.parse('alpha,a,c');
    expect(parsed.tiers.map((t) => t.members.map((m) => m.key))).toEqual([['a'], ['c']]);
    expect(parsed.warnings).toHaveLength(1);
  });

  it('applies per-pipeline overrides over the global defaults', () => {
    const policy = catalog.policy('comment-filter');
    expect(policy.route.maxAttempts).toBe(4);
    expect(policy.route.deadlineMs).toBe(15_000);
    expect(policy.breaker).toEqual({ ...DEFAULT_BREAKER_POLICY, openMs: 60_000 });
  });

  it('gives an ad-hoc chain the global defaults', () => {
    expect(catalog.policy('a,b').route.maxAttempts).toBe(3);
  });

  it('takes global router and breaker settings from the config', () => {
    const custom = createCatalog(testConfig({ router: { maxAttempts: 2 }, breaker: { consecutive429: 5 } }));
    expect(custom.policy('anything').route.maxAttempts).toBe(2);
    expect(custom.policy('comment-filter').breaker.consecutive429).toBe(5);
  });

  it('gives models the default attempt timeout unless they set one', () => {
    expect(catalog.models.get('a')?.timeouts.totalMs).toBe(10_000);
    expect(catalog.models.get('c')?.timeouts.totalMs).toBe(5_000);
  });

  it('refuses a pipeline whose chain resolves to no model, naming the pipeline', () => {
    expect(() => createCatalog(testConfig({ pipelines: { broken: { chain: 'nope,(zip)' } } }))).toThrow(
      ConfigError,
    );
    try {
      createCatalog(testConfig({ pipelines: { broken: { chain: 'nope' } } }));
    } catch (error) {
      expect((error as ConfigError).path).toBe('pipelines.broken.chain');
      expect((error as ConfigError).message).toContain("unknown model 'nope'");
    }
  });
});
