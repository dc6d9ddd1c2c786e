import { beforeEach, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../helpers/cli-harness.js';
import { useOperatorAws } from '../helpers/operator-aws.js';
import { ABC_CONFIG } from '../helpers/test-config.js';

const PARAM = '/switchyard/chains/p';
const aws = useOperatorAws(ABC_CONFIG);
beforeEach(() => aws.ssm.delete(PARAM));

const explain = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) =>
  runCliCaptured(['explain', '--config', aws.config, ...args], { ...aws.env, ...extraEnv });

describe('switchyard explain --ssm: the source that wins, as the deployed gateway sees it', () => {
  it('names the operator override as source ssm, keeping the JSON contract', async () => {
    aws.ssm.put(PARAM, 'c,a');
    const out = await explain(['--ssm', '--json', 'p']);
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({
      tiers: [['c'], ['a']],
      warnings: [],
      timeouts: {
        c: { connectMs: 10_000, firstByteMs: 10_000, totalMs: 10_000, idleMs: 10_000 },
        a: { connectMs: 10_000, firstByteMs: 10_000, totalMs: 10_000, idleMs: 10_000 },
      },
      source: 'ssm',
      chain: 'c,a',
      limits: { substitution: 'allow', maxTier: null },
      output: {
        structuredOutput: { repairAttempts: 1, repairWith: 'same' },
        substitutes: null,
        systemPromptSuffix: null,
        lastResort: null,
      },
    });
  });

  it('says config when there is no override', async () => {
    const json = JSON.parse((await explain(['--ssm', '--json', 'p'])).stdout);
    expect(json).toMatchObject({ source: 'config', chain: '(a|b),c' });
    const human = await explain(['--ssm', 'p']);
    expect(human.stdout).toMatch(/^source {4}config \(no operator override in \/switchyard\/chains\/p\)$/m);
  });

  it('skips an override that resolves to no model, names it in the warnings and falls to config', async () => {
    aws.ssm.put(PARAM, 'retired');
    const json = JSON.parse((await explain(['--ssm', '--json', 'p'])).stdout);
    expect(json.source).toBe('config');
    expect(json.chain).toBe('(a|b),c');
    expect(json.warnings[0]).toBe('ssm: chain resolves to no model; source skipped');
  });

  it('puts MODEL_<P> above the override, as the gateway does', async () => {
    aws.ssm.put(PARAM, 'c');
    const json = JSON.parse((await explain(['--ssm', '--json', 'p'], { MODEL_P: 'b' })).stdout);
    expect(json).toMatchObject({ source: 'env', chain: 'b' });
    const human = await explain(['--ssm', 'p'], { MODEL_P: 'b' });
    expect(human.stdout).toMatch(/^source {4}env \(MODEL_P\); it wins over the operator override$/m);
  });

  it('says "override" in the human output and shows the config chain it replaces', async () => {
    aws.ssm.put(PARAM, 'c,a');
    const out = await explain(['--ssm', 'p']);
    expect(out.stdout.split('\n').slice(0, 4)).toEqual([
      'pipeline  p',
      'source    ssm: operator override /switchyard/chains/p (version 1)',
      'chain     c,a',
      'config    (a|b),c (not in force)',
    ]);
  });

  it('without --ssm reads no SSM and says that it did not', async () => {
    aws.ssm.put(PARAM, 'c,a');
    const before = aws.ssm.requests.length;
    const out = await explain(['p']);
    expect(out.stdout).toMatch(/^source {4}config \(SSM override not read; add --ssm\)$/m);
    expect(JSON.parse((await explain(['--json', 'p'])).stdout).source).toBe('config');
    expect(aws.ssm.requests.length).toBe(before);
  });

  it('reads no SSM for a chain, which has no sources', async () => {
    const before = aws.ssm.requests.length;
    const out = await explain(['--ssm', '--json', 'c,a']);
    expect(Object.keys(JSON.parse(out.stdout))).toEqual(['tiers', 'warnings', 'timeouts']);
    expect(aws.ssm.requests.length).toBe(before);
  });

  it('exits 1 with one line when SSM cannot be read, rather than claim the config won', async () => {
    aws.ssm.fail('GetParameter', { type: 'AccessDeniedException', message: 'not allowed' });
    const out = await explain(['--ssm', '--json', 'p']);
    expect(out).toMatchObject({
      code: 1,
      stdout: '',
      stderr:
        'switchyard explain: reading /switchyard/chains/p: SSM answered AccessDeniedException: not allowed\n',
    });
  });
});
