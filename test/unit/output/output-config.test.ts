import { describe, expect, it } from 'vitest';
import { outputPolicy } from '../../../lambda/core/output/output-policy.js';
import { testConfig } from '../../helpers/test-config.js';

const withPipeline = (p: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  testConfig({ pipelines: { p: { chain: 'a', ...p } }, ...extra });

const errorOf = (build: () => unknown): string => {
  try {
    build();
  } catch (error) {
    return (error as Error).message;
  }
  return 'no error';
};

describe('output settings in the config', () => {
  it('defaults: one repair on the same model, no post-processing, no suffix, no last resort', () => {
    const policy = outputPolicy(withPipeline({}), 'p');
    expect(policy).toEqual({
      structured: { repairAttempts: 1, repairWith: 'same' },
      substitutes: undefined,
      systemPromptSuffix: undefined,
      lastResort: undefined,
    });
  });

  it('a pipeline overrides each repair field on its own; others keep the top-level value', () => {
    const config = withPipeline(
      { structuredOutput: { repairWith: 'next' } },
      { structuredOutput: { repairAttempts: 3 } },
    );
    expect(outputPolicy(config, 'p').structured).toEqual({ repairAttempts: 3, repairWith: 'next' });
    expect(outputPolicy(config, 'chain:a').structured).toEqual({ repairAttempts: 3, repairWith: 'same' });
  });

  it('fills the defaults of substitutes and of a cache last resort', () => {
    const policy = outputPolicy(withPipeline({ substitutes: {}, lastResort: { type: 'cache' } }), 'p');
    expect(policy.substitutes).toEqual({ stripHeadings: false, foldLists: false });
    expect(policy.lastResort).toEqual({ type: 'cache', ttlSeconds: 86_400 });
  });

  it('top-level answerCache bounds the cache', () => {
    expect(withPipeline({}).answerCache).toEqual({ maxEntries: 1_000, maxBytes: 32_768 });
  });

  it("top-level structuredOutput bounds callers' schemas, defaulted; a pipeline cannot set them", () => {
    expect(withPipeline({}).structuredOutput).toEqual({
      repairAttempts: 1,
      repairWith: 'same',
      maxSchemaNodes: 5_000,
      maxSchemaDepth: 32,
      maxPatternChars: 1_000,
      maxPatternProgram: 1_000,
      maxPatternWork: 200_000,
      maxRefSteps: 10_000,
    });
    expect(errorOf(() => withPipeline({}, { structuredOutput: { maxSchemaDepth: 0 } }))).toContain(
      'invalid config: structuredOutput.maxSchemaDepth',
    );
    expect(errorOf(() => withPipeline({ structuredOutput: { maxPatternChars: 10 } }))).toContain(
      'invalid config: pipelines.p.structuredOutput',
    );
  });

  it.each([
    [{ structuredOutput: { repairAttempts: 6 } }, 'pipelines.p.structuredOutput.repairAttempts'],
    [{ structuredOutput: { repairAttempts: -1 } }, 'pipelines.p.structuredOutput.repairAttempts'],
    [{ structuredOutput: { repairWith: 'other' } }, 'pipelines.p.structuredOutput.repairWith'],
    [{ substitutes: { maxChars: 0 } }, 'pipelines.p.substitutes.maxChars'],
    [{ substitutes: { stripHeading: true } }, 'pipelines.p.substitutes'],
    [{ systemPromptSuffix: '' }, 'pipelines.p.systemPromptSuffix'],
    [{ lastResort: { type: 'template' } }, 'pipelines.p.lastResort.content'],
    [{ lastResort: { type: 'cache', ttlSeconds: 0 } }, 'pipelines.p.lastResort.ttlSeconds'],
    [{ lastResort: { type: 'guess' } }, 'pipelines.p.lastResort.type'],
  ])('refuses %j naming %s', (pipeline, field) => {
    expect(errorOf(() => withPipeline(pipeline))).toContain(`invalid config: ${field}`);
  });

  it('accepts repairAttempts 0 and 5, the ends of its range', () => {
    expect(
      outputPolicy(withPipeline({ structuredOutput: { repairAttempts: 0 } }), 'p').structured.repairAttempts,
    ).toBe(0);
    expect(
      outputPolicy(withPipeline({ structuredOutput: { repairAttempts: 5 } }), 'p').structured.repairAttempts,
    ).toBe(5);
  });

  it('refuses an answerCache.maxBytes past what a DynamoDB item can hold', () => {
    expect(errorOf(() => withPipeline({}, { answerCache: { maxBytes: 350_001 } }))).toContain(
      'invalid config: answerCache.maxBytes',
    );
  });
});
