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
    const effective = await resolveEffectiveChain('comment-filter', sources, catalog, log);
    expect(effective).toMatchObject({ source: 'env', chain: 'c' });
    const withoutEnv = await resolveEffectiveChain('comment-filter', sources.slice(1), catalog, log);
    expect(withoutEnv).toMatchObject({ source: 'ssm', chain: 'b' });
    const configOnly = await resolveEffectiveChain('comment-filter', sources.slice(2), catalog, log);
    expect(configOnly?.source).toBe('config');
    expect(keys(configOnly?.tiers)).toEqual([['a', 'b'], ['c']]);
  });

  it('skips an override that resolves to nothing, and logs it as an error', async () => {
    const { log, lines } = recordingLogger();
    const sources = [
      createEnvChainSource({ MODEL_COMMENT_FILTER: 'typo-model' }),
      createConfigChainSource(catalog),
    ];
    const effective = await resolveEffectiveChain('comment-filter', sources, catalog, log);
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
    );
    expect(effective?.source).toBe('config');
    expect(lines).toEqual([]);
  });

  it('resolves nothing for an unknown pipeline with no override', async () => {
    const { log } = recordingLogger();
    expect(
      await resolveEffectiveChain('nope', [createConfigChainSource(catalog)], catalog, log),
    ).toBeUndefined();
  });

  it('lets an env override serve a pipeline the config does not have', async () => {
    const { log } = recordingLogger();
    const effective = await resolveEffectiveChain(
      'adhoc',
      [createEnvChainSource({ MODEL_ADHOC: 'a' })],
      catalog,
      log,
    );
    expect(effective?.source).toBe('env');
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
    expect(await resolveEffectiveChain('index', sources, catalog, log)).toMatchObject({ source: 'env' });
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
    expect(await resolveEffectiveChain(pipeline, sources, catalog, log)).toMatchObject({ source: 'config' });
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'error',
        fields: expect.objectContaining({ source: 'env', problem: expect.stringContaining(problem) }),
      }),
    ]);
  });
});
