import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliCaptured, writeTempConfig } from '../../helpers/cli-harness.js';
import { ABC_CONFIG } from '../../helpers/test-config.js';

describe('switchyard explain', () => {
  const config = writeTempConfig(ABC_CONFIG);

  it('prints exactly one JSON object with the tiers and one warning per problem', async () => {
    const { code, stdout } = await runCliCaptured([
      'explain',
      '--config',
      config,
      '--json',
      '(a|b),,(),c,a,nosuchmodel',
    ]);
    expect(code).toBe(0);
    const output = JSON.parse(stdout);
    expect(Object.keys(output)).toEqual(['tiers', 'warnings', 'timeouts']);
    expect(output.tiers).toEqual([['a', 'b'], ['c']]);
    expect(output.warnings).toHaveLength(4);
    expect(output.warnings.join('\n')).toMatch(
      /empty tier[\s\S]*empty group[\s\S]*duplicate[\s\S]*nosuchmodel/,
    );
  });

  it('adds the source, the chain and the substitution limits for a pipeline', async () => {
    const { stdout } = await runCliCaptured(['explain', '--config', config, '--json', 'p']);
    expect(JSON.parse(stdout)).toEqual({
      tiers: [['a', 'b'], ['c']],
      warnings: [],
      timeouts: {
        a: { connectMs: 10_000, firstByteMs: 10_000, totalMs: 10_000, idleMs: 10_000 },
        b: { connectMs: 10_000, firstByteMs: 10_000, totalMs: 10_000, idleMs: 10_000 },
        c: { connectMs: 10_000, firstByteMs: 10_000, totalMs: 10_000, idleMs: 10_000 },
      },
      source: 'config',
      chain: '(a|b),c',
      limits: { substitution: 'allow', maxTier: null },
      output: {
        structuredOutput: { repairAttempts: 1, repairWith: 'same' },
        substitutes: null,
        systemPromptSuffix: null,
        lastResort: null,
      },
    });
  });

  it('shows each route’s layered timeouts, derived from timeoutMs where unset', async () => {
    const configured = writeTempConfig({
      ...ABC_CONFIG,
      models: {
        ...ABC_CONFIG.models,
        a: {
          provider: 'fake',
          model: 'model-a',
          timeoutMs: 30_000,
          timeouts: { connectMs: 3_000, firstByteMs: 8_000 },
        },
      },
    });
    const json = JSON.parse(
      (await runCliCaptured(['explain', '--config', configured, '--json', 'a,c'])).stdout,
    );
    expect(json.timeouts).toEqual({
      a: { connectMs: 3_000, firstByteMs: 8_000, totalMs: 30_000, idleMs: 30_000 },
      c: { connectMs: 10_000, firstByteMs: 10_000, totalMs: 10_000, idleMs: 10_000 },
    });
    const { stdout } = await runCliCaptured(['explain', '--config', configured, 'a,c']);
    expect(stdout).toMatch(/^ROUTE +CONNECT MS +FIRST BYTE MS +TOTAL MS +STREAM IDLE MS$/m);
    expect(stdout).toMatch(/^a +3000 +8000 +30000 +30000$/m);
    expect(stdout).toMatch(/^c +10000 +10000 +10000 +10000$/m);
  });

  it('shows what a pipeline does with answers: repair, post-processing, suffix, last resort', async () => {
    const configured = writeTempConfig({
      ...ABC_CONFIG,
      pipelines: {
        p: {
          chain: 'a,c',
          structuredOutput: { repairAttempts: 2, repairWith: 'next' },
          substitutes: { maxChars: 400, foldLists: true },
          systemPromptSuffix: 'No emoji.',
          lastResort: { type: 'template', content: 'Busy; try again soon.' },
        },
      },
    });
    const json = JSON.parse(
      (await runCliCaptured(['explain', '--config', configured, '--json', 'p'])).stdout,
    );
    expect(json.output).toEqual({
      structuredOutput: { repairAttempts: 2, repairWith: 'next' },
      substitutes: { maxChars: 400, stripHeadings: false, foldLists: true },
      systemPromptSuffix: 'No emoji.',
      lastResort: { type: 'template', content: 'Busy; try again soon.' },
    });
    const { stdout } = await runCliCaptured(['explain', '--config', configured, 'p']);
    expect(stdout).toContain('structured    2 repair(s) on the next model, then fall back');
    expect(stdout).toContain(
      'substitutes   lists folded, cut at a sentence within 400 characters (answers not from tier 1)',
    );
    expect(stdout).toContain('prompt        suffix "No emoji."');
    expect(stdout).toContain('last resort   template "Busy; try again soon."');
  });

  it('says a pipeline without output settings keeps answers and errors as they are', async () => {
    const { stdout } = await runCliCaptured(['explain', '--config', config, 'p']);
    expect(stdout).toContain('structured    1 repair(s) on the same model, then fall back');
    expect(stdout).toContain('substitutes   answers as they come');
    expect(stdout).toContain('last resort   none: the caller gets the error');
  });

  it('shows a model’s routes, in order, and the pipeline’s limits', async () => {
    const routed = writeTempConfig({
      ...ABC_CONFIG,
      providers: { ...ABC_CONFIG.providers, azure: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1' } },
      models: {
        ...ABC_CONFIG.models,
        a: { provider: 'fake', model: 'model-a', routes: [{ provider: 'azure', model: 'a-deployment' }] },
      },
      pipelines: { p: { chain: 'a,c', substitution: 'forbid' }, q: { chain: 'a,b,c', maxTier: 2 } },
    });
    const json = JSON.parse((await runCliCaptured(['explain', '--config', routed, '--json', 'p'])).stdout);
    expect(json).toMatchObject({
      routes: { a: ['a', 'a~azure'] },
      limits: { substitution: 'forbid', maxTier: null },
    });
    const human = (await runCliCaptured(['explain', '--config', routed, 'p'])).stdout;
    expect(human).toMatch(/^1 +a +fake +1 +model-a$/m);
    expect(human).toMatch(/^ +a +azure +- +a-deployment$/m);
    expect(human).toMatch(/^2 +c +fake +1 +model-c$/m);
    expect(human).toMatch(/^limits +substitution: forbid, maxTier: none \(only tier 1 may answer\)$/m);
    const q = (await runCliCaptured(['explain', '--config', routed, 'q'])).stdout;
    expect(q).toMatch(/^limits +substitution: allow, maxTier: 2 \(tiers 1-2 may answer\)$/m);
  });

  it('shows an env override as the source', async () => {
    const { stdout } = await runCliCaptured(['explain', '--config', config, '--json', 'p'], {
      MODEL_P: 'c,a',
    });
    expect(JSON.parse(stdout)).toMatchObject({ tiers: [['c'], ['a']], source: 'env', chain: 'c,a' });
  });

  it('skips an env override that resolves to nothing and says so', async () => {
    const { stdout } = await runCliCaptured(['explain', '--config', config, '--json', 'p'], {
      MODEL_P: 'typo',
    });
    const output = JSON.parse(stdout);
    expect(output.source).toBe('config');
    expect(output.warnings[0]).toContain('env');
  });

  it('prints a readable table with tier, model key, provider and weight', async () => {
    const { code, stdout } = await runCliCaptured(['explain', '--config', config, '(a*3|b),c,zzz']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/TIER\s+MODEL\s+PROVIDER\s+WEIGHT/);
    expect(stdout).toMatch(/1\s+a\s+fake\s+3/);
    expect(stdout).toMatch(/2\s+c\s+fake\s+1/);
    expect(stdout).toContain("unknown model 'zzz'");
  });

  it('exits 2 with a one-line reason when the chain resolves to nothing', async () => {
    const { code, stderr } = await runCliCaptured(['explain', '--config', config, 'nosuchmodel']);
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain("'nosuchmodel' resolves to no model");
  });

  it.each([
    ['a missing file', ['explain', '--config', '/definitely/missing.json', 'a'], 'file not found'],
    ['broken JSON', ['explain', '--config', writeTempConfig('{"providers":'), 'a'], 'is not valid JSON'],
    [
      'an invalid field',
      [
        'explain',
        '--config',
        writeTempConfig({ providers: {}, models: { a: { provider: 'x', model: 'y' } } }),
        'a',
      ],
      'models.a.provider',
    ],
    ['no argument', ['explain'], 'usage: switchyard explain'],
    ['an unknown flag', ['explain', '--nope', 'a'], "Unknown option '--nope'"],
  ])('exits 2 with one line on %s', async (_name, argv, text) => {
    const { code, stderr } = await runCliCaptured(argv);
    expect(code).toBe(2);
    expect(stderr).toContain(text);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('reads SWITCHYARD_CONFIG, then ./switchyard.config.json, then the embedded default', async () => {
    const viaEnv = await runCliCaptured(['explain', '--json', 'p'], { SWITCHYARD_CONFIG: config });
    expect(JSON.parse(viaEnv.stdout).source).toBe('config');
    const viaCwd = await runCliCaptured(['explain', '--json', 'p'], {}, dirname(config));
    expect(JSON.parse(viaCwd.stdout).chain).toBe('(a|b),c');
    const embedded = await runCliCaptured(['explain', '--json', 'comment-filter'], {}, '/');
    expect(JSON.parse(embedded.stdout).tiers.length).toBeGreaterThan(0);
  });

  it('rejects an unknown command with status 2', async () => {
    const { code, stderr } = await runCliCaptured(['frobnicate']);
    expect(code).toBe(2);
    expect(stderr).toContain("unknown command 'frobnicate'");
  });
});
