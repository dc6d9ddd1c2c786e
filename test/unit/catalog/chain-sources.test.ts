import { describe, expect, it } from 'vitest';
import { createCatalog } from '../../../lambda/core/catalog/catalog.js';
import {
  createConfigChainSource,
  createEnvChainSource,
  createSsmChainSource,
  envVarName,
  resolveEffectiveChain,
} from '../../../lambda/core/catalog/chain-sources.js';
import type { Logger } from '../../../lambda/core/logger.js';
import { testConfig } from '../../helpers/test-config.js';

function recordingLogger() {
  const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    lines.push({ level, message, fields });
  const log: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { log, lines };
}

/** Any instant: these sources hold no timed override. */
const NOW = 1_700_000_000_000;

describe('chain sources', () => {
  const catalog = createCatalog(testConfig());
  const keys = (tiers: { members: { key: string }[] }[] | undefined) =>
    tiers?.map((t) => t.members.map((m) => m.key));

  it.each([
    ['comment-filter', 'MODEL_COMMENT_FILTER'],
    ['reply.writer-v2', 'MODEL_REPLY_WRITER_V2'],
    ['simple', 'MODEL_SIMPLE'],
  ])('names the env var of %s %s', (pipeline, name) => {
    expect(envVarName(pipeline)).toBe(name);
  });

  it('prefers the env var over SSM over the config', async () => {
    const { log } = recordingLogger();
    const sources = [
      createEnvChainSource({ MODEL_COMMENT_FILTER: 'c' }),
      createSsmChainSource({ get: async () => 'b' }),
      createConfigChainSource(catalog),
    ];
    const effective = await resolveEffectiveChain('comment-filter', sources, catalog, log, NOW);
    expect(effective).toMatchObject({ source: 'env', chain: 'c' });
    const withoutEnv = await resolveEffectiveChain('comment-filter', sources.slice(1), catalog, log, NOW);
    expect(withoutEnv).toMatchObject({ source: 'ssm', chain: 'b' });
    const configOnly = await resolveEffectiveChain('comment-filter', sources.slice(2), catalog, log, NOW);
    expect(configOnly?.source).toBe('config');
    expect(keys(configOnly?.tiers)).toEqual([['a', 'b'], ['c']]);
  });

  it('skips an override that resolves to nothing, and logs it as an error', async () => {
    const { log, lines } = recordingLogger();
    const sources = [
      createEnvChainSource({ MODEL_COMMENT_FILTER: 'typo-model' }),
      createConfigChainSource(catalog),
    ];
    const effective = await resolveEffectiveChain('comment-filter', sources, catalog, log, NOW);
    expect(effective?.source).toBe('config');
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'error',
        fields: expect.objectContaining({ source: 'env', pipeline: 'comment-filter' }),
      }),
    ]);
  });

  it('skips a source that fails to answer', async () => {
    const { log, lines } = recordingLogger();
    const failing = createSsmChainSource({
      get: async () => {
        throw new Error('ThrottlingException');
      },
    });
    const effective = await resolveEffectiveChain(
      'comment-filter',
      [failing, createConfigChainSource(catalog)],
      catalog,
      log,
      NOW,
    );
    expect(effective?.source).toBe('config');
    expect(lines[0]?.level).toBe('error');
  });

  it('treats an empty env var as not set', async () => {
    const { log, lines } = recordingLogger();
    const effective = await resolveEffectiveChain(
      'comment-filter',
      [createEnvChainSource({ MODEL_COMMENT_FILTER: '  ' }), createConfigChainSource(catalog)],
      catalog,
      log,
      NOW,
    );
    expect(effective?.source).toBe('config');
    expect(lines).toEqual([]);
  });

  it('resolves nothing for an unknown pipeline with no override', async () => {
    const { log } = recordingLogger();
    expect(
      await resolveEffectiveChain('nope', [createConfigChainSource(catalog)], catalog, log, NOW),
    ).toBeUndefined();
  });

  it('lets an env override serve a pipeline the config does not have', async () => {
    const { log } = recordingLogger();
    const effective = await resolveEffectiveChain(
      'adhoc',
      [createEnvChainSource({ MODEL_ADHOC: 'a' })],
      catalog,
      log,
      NOW,
    );
    expect(effective?.source).toBe('env');
  });
});

describe('timed overrides and canaries in the chain sources', () => {
  const catalog = createCatalog(testConfig());
  const UNTIL = '2026-12-01T20:00:00.000Z';
  const END = Date.parse(UNTIL);
  const ssm = (value: unknown) =>
    createSsmChainSource({ get: async () => (typeof value === 'string' ? value : JSON.stringify(value)) });
  const resolve = (sources: ReturnType<typeof ssm>[], now: number, log = recordingLogger().log) =>
    resolveEffectiveChain(
      'comment-filter',
      [...sources, createConfigChainSource(catalog)],
      catalog,
      log,
      now,
    );

  it('serves a timed SSM override until its end, then the SSM chain that was there before it', async () => {
    const source = ssm({ chain: 'a', timed: { chain: 'c', until: UNTIL, pin: true } });
    expect(await resolve([source], END - 1)).toMatchObject({
      source: 'ssm',
      chain: 'c',
      until: END,
      pinned: true,
    });
    const after = await resolve([source], END);
    expect(after).toMatchObject({ source: 'ssm', chain: 'a' });
    expect(after?.until).toBeUndefined();
    expect(after?.pinned).toBeUndefined();
  });

  it('returns to the config chain at the end of a timed override that had nothing before it', async () => {
    const source = ssm({ timed: { chain: 'c', until: UNTIL } });
    expect((await resolve([source], END - 1))?.source).toBe('ssm');
    expect(await resolve([source], END)).toMatchObject({ source: 'config', chain: '(a|b),c' });
  });

  it('lets a timed override in MODEL_<P> expire back to the SSM override', async () => {
    const env = createEnvChainSource({
      MODEL_COMMENT_FILTER: JSON.stringify({ timed: { chain: 'c', until: UNTIL, pin: true } }),
    });
    expect(await resolve([env, ssm('b')], END - 1)).toMatchObject({
      source: 'env',
      chain: 'c',
      pinned: true,
    });
    expect(await resolve([env, ssm('b')], END)).toMatchObject({ source: 'ssm', chain: 'b' });
  });

  it('runs a canary without a chain of its own over the config chain', async () => {
    const source = ssm({ canary: { chain: 'c', percent: 10, since: UNTIL } });
    const effective = await resolve([source], END);
    expect(effective).toMatchObject({ source: 'config', chain: '(a|b),c' });
    expect(effective?.canary).toMatchObject({ chain: 'c', percent: 10, since: UNTIL });
    expect(effective?.canary?.tiers.map((t) => t.members.map((m) => m.key))).toEqual([['c']]);
  });

  it('leaves out a canary whose chain resolves to no model, and logs it', async () => {
    const { log, lines } = recordingLogger();
    const source = ssm({ chain: 'a', canary: { chain: 'nosuch', percent: 10, since: UNTIL } });
    const effective = await resolve([source], END, log);
    expect(effective).toMatchObject({ source: 'ssm', chain: 'a' });
    expect(effective?.canary).toBeUndefined();
    expect(lines.map((l) => l.level)).toContain('error');
  });

  it('skips an override document it cannot read, logging the field', async () => {
    const { log, lines } = recordingLogger();
    const effective = await resolve([ssm({ timed: { chain: 'c', until: 'soon' } })], END, log);
    expect(effective?.source).toBe('config');
    expect(lines[0]).toMatchObject({
      level: 'error',
      fields: expect.objectContaining({ problem: expect.stringContaining('timed.until') }),
    });
  });
});

describe('chain sources: embedding pipelines', () => {
  const catalog = createCatalog(
    testConfig({
      models: {
        a: { provider: 'one', model: 'raw-a' },
        e1: { provider: 'one', model: 'raw-e1', dimensions: 8 },
        e2: { provider: 'one', model: 'raw-e2', dimensions: 8 },
        e3: { provider: 'one', model: 'raw-e3', dimensions: 16 },
      },
      pipelines: { index: { chain: 'e1' }, chat: { chain: 'a' } },
    }),
  );

  it('takes an override of the same embedding space', async () => {
    const { log } = recordingLogger();
    const sources = [createEnvChainSource({ MODEL_INDEX: 'e2,e1' }), createConfigChainSource(catalog)];
    expect(await resolveEffectiveChain('index', sources, catalog, log, NOW)).toMatchObject({ source: 'env' });
  });

  it.each([
    [
      'mixes embedding spaces',
      'index',
      'MODEL_INDEX',
      'e1,e3',
      'mixes embedding spaces (e1: 8, e3: 16 dimensions)',
    ],
    [
      'changes the space',
      'index',
      'MODEL_INDEX',
      'e3',
      'serves embeddings of 16 dimensions, the config chain embeddings of 8 dimensions',
    ],
    [
      'turns embeddings into chat',
      'index',
      'MODEL_INDEX',
      'a',
      'serves chat, the config chain embeddings of 8 dimensions',
    ],
    [
      'turns chat into embeddings',
      'chat',
      'MODEL_CHAT',
      'e1',
      'serves embeddings of 8 dimensions, the config chain chat',
    ],
  ])('skips an override that %s, and logs why', async (_label, pipeline, variable, chain, problem) => {
    const { log, lines } = recordingLogger();
    const sources = [createEnvChainSource({ [variable]: chain }), createConfigChainSource(catalog)];
    expect(await resolveEffectiveChain(pipeline, sources, catalog, log, NOW)).toMatchObject({
      source: 'config',
    });
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'error',
        fields: expect.objectContaining({ source: 'env', problem: expect.stringContaining(problem) }),
      }),
    ]);
  });
});
