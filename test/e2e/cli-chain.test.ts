import { beforeEach, describe, expect, it } from 'vitest';
import { describeAwsError } from '../../lambda/cli/ssm-cli-support.js';
import { runCliCaptured } from '../helpers/cli-harness.js';
import { useOperatorAws } from '../helpers/operator-aws.js';
import { ABC_CONFIG } from '../helpers/test-config.js';

const PARAM = '/switchyard/chains/p';
const aws = useOperatorAws(ABC_CONFIG);
beforeEach(() => aws.ssm.delete(PARAM));

const chain = (...args: string[]) => runCliCaptured(['chain', ...args, '--config', aws.config], aws.env);

describe('switchyard chain', () => {
  it('refuses a chain that resolves to nothing with status 2 and writes nothing', async () => {
    const out = await chain('set', 'p', 'nosuchmodel');
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("unknown model 'nosuchmodel'");
    expect(out.stderr).toMatch(/'nosuchmodel' resolves to no model .*; nothing written\n$/);
    expect(aws.ssm.requests.filter((r) => r.target === 'PutParameter')).toHaveLength(0);
    expect(aws.ssm.value(PARAM)).toBeUndefined();
  });

  it('refuses an unknown pipeline unless --force', async () => {
    const refused = await chain('set', 'nosuchpipe', 'c');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("unknown pipeline 'nosuchpipe' (configured: p)");
    expect(aws.ssm.value('/switchyard/chains/nosuchpipe')).toBeUndefined();
    const forced = await chain('set', 'nosuchpipe', 'c', '--force');
    expect(forced.code).toBe(0);
    expect(aws.ssm.value('/switchyard/chains/nosuchpipe')).toBe('c');
  });

  it('writes a valid chain (printing its warnings), and get shows it', async () => {
    const set = await chain('set', 'p', 'c,a,nosuch');
    expect(set.code).toBe(0);
    expect(set.stderr).toContain("warning: unknown model 'nosuch'");
    expect(set.stdout).toContain('pipeline p now routes on: c,a,nosuch');
    expect(set.stdout).toContain('tiers: c → a');
    expect(aws.ssm.value(PARAM)).toBe('c,a,nosuch');
    expect(aws.ssm.versions(PARAM)[0]).toMatchObject({
      type: 'String',
      by: expect.stringContaining('AKIDOPERATOR'),
    });

    const get = await chain('get', 'p');
    expect(get.code).toBe(0);
    expect(get.stdout).toMatch(/^chain +c,a,nosuch$/m);
    expect(get.stdout).toMatch(/^version +1 /m);
  });

  it('says the config chain applies when there is no override', async () => {
    const get = await chain('get', 'p');
    expect(get).toMatchObject({
      code: 0,
      stdout: 'no SSM override for pipeline p; the config chain applies: (a|b),c\n',
    });
  });

  it('lists the history newest first and rolls back to the previous chain', async () => {
    await chain('set', 'p', 'a');
    await chain('set', 'p', 'b');
    await chain('set', 'p', 'c');
    const history = await chain('history', 'p');
    expect(history.code).toBe(0);
    const rows = history.stdout.trim().split('\n').slice(2);
    expect(rows[0]).toMatch(/^VERSION +MODIFIED +BY +CHAIN$/);
    expect(rows.slice(1).map((r) => r.split(/ +/)[0])).toEqual(['3', '2', '1']);
    expect(rows[1]).toMatch(/^3 +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ +user\/AKIDOPERATOR +c$/);

    const rollback = await chain('rollback', 'p');
    expect(rollback.code).toBe(0);
    expect(rollback.stdout).toContain('pipeline p now routes on: b');
    expect(aws.ssm.value(PARAM)).toBe('b');
    expect(aws.ssm.versions(PARAM)).toHaveLength(4);

    const to = await chain('rollback', 'p', '--to', '1');
    expect(to.code).toBe(0);
    expect(aws.ssm.value(PARAM)).toBe('a');
  });

  it('refuses to roll back to a chain that no longer resolves, unless --force', async () => {
    aws.ssm.put(PARAM, 'retired-model');
    await chain('set', 'p', 'a');
    const refused = await chain('rollback', 'p');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('resolves to no model in this catalog');
    expect(aws.ssm.value(PARAM)).toBe('a');
    expect((await chain('rollback', 'p', '--force')).code).toBe(0);
    expect(aws.ssm.value(PARAM)).toBe('retired-model');
  });

  it('answers status 2 for nothing to roll back and for bad arguments', async () => {
    expect((await chain('rollback', 'p')).stderr).toContain('cannot roll back p: no SSM override');
    expect((await chain('rollback', 'p', '--to', 'x')).code).toBe(2);
    expect((await chain('set', 'p')).code).toBe(2);
    expect((await chain('get', 'bad/name')).code).toBe(2);
    expect((await chain('frobnicate', 'p')).code).toBe(2);
  });

  it('clear deletes the override, says what it was and how to restore it; the config chain applies again', async () => {
    await chain('set', 'p', 'c,a');
    const clear = await chain('clear', 'p');
    expect(clear.code).toBe(0);
    expect(clear.stdout).toBe(
      [
        'cleared the operator override of p (was: c,a, version 1)',
        'pipeline p now routes on its config chain: (a|b),c',
        'deleted /switchyard/chains/p; running Lambda containers pick it up within 30 s',
        `SSM deleted the override's history with it; to restore it: switchyard chain set p "c,a"`,
        '',
      ].join('\n'),
    );
    expect(aws.ssm.value(PARAM)).toBeUndefined();
    expect(aws.ssm.requests.at(-1)).toEqual({ target: 'DeleteParameter', body: { Name: PARAM } });
    expect((await chain('get', 'p')).stdout).toBe(
      'no SSM override for pipeline p; the config chain applies: (a|b),c\n',
    );
  });

  it('clear with no override says there is nothing to clear, exits 0 and deletes nothing', async () => {
    const before = aws.ssm.requests.length;
    const clear = await chain('clear', 'p');
    expect(clear).toMatchObject({
      code: 0,
      stdout: 'no SSM override for pipeline p, nothing to clear; the config chain applies: (a|b),c\n',
      stderr: '',
    });
    expect(aws.ssm.requests.slice(before).map((r) => r.target)).toEqual(['GetParameter']);
  });

  it('clear removes an override of a pipeline the config does not know (written with --force)', async () => {
    aws.ssm.put('/switchyard/chains/orphan', 'c');
    const clear = await chain('clear', 'orphan');
    expect(clear.code).toBe(0);
    expect(clear.stdout).toContain('the config has no pipeline orphan; nothing routes it now');
    expect(aws.ssm.value('/switchyard/chains/orphan')).toBeUndefined();
    expect((await chain('clear', 'orphan')).code).toBe(2);
  });

  it('history and rollback after a clear say that SSM deleted the history with the parameter', async () => {
    await chain('set', 'p', 'a');
    await chain('set', 'p', 'b');
    await chain('clear', 'p');
    const history = await chain('history', 'p');
    expect(history.code).toBe(0);
    expect(history.stdout).toBe(
      'no SSM override for pipeline p (a cleared override leaves no history: SSM deletes it with the parameter); the config chain applies: (a|b),c\n',
    );
    const rollback = await chain('rollback', 'p');
    expect(rollback.code).toBe(2);
    expect(rollback.stderr).toBe(
      'switchyard chain: cannot roll back p: no SSM override to roll back (a cleared override leaves no history: SSM deletes it with the parameter)\n',
    );
    expect(aws.ssm.value(PARAM)).toBeUndefined();
  });

  it.each([
    ['the override is in force', 'c,a', {}, 'ssm: this operator override is in force'],
    [
      'the override resolves to no model',
      'retired',
      {},
      'config: this override resolves to no model, so the gateway skips it',
    ],
    [
      'MODEL_P wins over it',
      'c,a',
      { MODEL_P: 'b' },
      'env: MODEL_P in this environment wins over this override',
    ],
  ])('get names the source that wins when %s', async (_case, value, extraEnv, source) => {
    aws.ssm.put(PARAM, value);
    const get = await runCliCaptured(['chain', 'get', 'p', '--config', aws.config], {
      ...aws.env,
      ...extraEnv,
    });
    expect(get.code).toBe(0);
    expect(get.stdout.split('\n')[1]).toBe(`source     ${source}`);
  });

  it('get says an override of a pipeline the config does not know routes nothing', async () => {
    aws.ssm.put('/switchyard/chains/orphan', 'c');
    const get = await chain('get', 'orphan');
    expect(get.stdout).toContain(
      'source     none: the config has no pipeline orphan, so the gateway does not route it',
    );
    aws.ssm.delete('/switchyard/chains/orphan');
  });

  it('exits 1 with one line when SSM refuses the delete, and keeps the override', async () => {
    await chain('set', 'p', 'c');
    aws.ssm.fail('DeleteParameter', { type: 'AccessDeniedException', message: 'not allowed' });
    const clear = await chain('clear', 'p');
    expect(clear.code).toBe(1);
    expect(clear.stderr).toBe(
      'switchyard chain: deleting /switchyard/chains/p: SSM answered AccessDeniedException: not allowed\n',
    );
    expect(aws.ssm.value(PARAM)).toBe('c');
  });

  it('uses SWITCHYARD_SSM_PREFIX', async () => {
    const out = await runCliCaptured(['chain', 'set', 'p', 'c', '--config', aws.config], {
      ...aws.env,
      SWITCHYARD_SSM_PREFIX: '/other',
    });
    expect(out.code).toBe(0);
    expect(aws.ssm.value('/other/chains/p')).toBe('c');
  });

  it('exits 1 with one line when SSM answers an error', async () => {
    aws.ssm.fail('GetParameter', { type: 'AccessDeniedException', message: 'not allowed' });
    const out = await chain('get', 'p');
    expect(out.code).toBe(1);
    expect(out.stderr).toBe(
      'switchyard chain: reading /switchyard/chains/p: SSM answered AccessDeniedException: not allowed\n',
    );
  });

  it('exits 1 with one line when SSM cannot be reached', async () => {
    const out = await runCliCaptured(['chain', 'get', 'p', '--config', aws.config], {
      ...aws.env,
      AWS_ENDPOINT_URL_SSM: 'http://127.0.0.1:9',
    });
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(
      /^switchyard chain: reading \/switchyard\/chains\/p: cannot reach SSM \(ECONNREFUSED\)/,
    );
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('describeAwsError', () => {
  it.each([
    [
      Object.assign(new Error('Could not load credentials from any providers'), {
        name: 'CredentialsProviderError',
      }),
      /no AWS credentials/,
    ],
    [new Error('Region is missing'), /no AWS region: set AWS_REGION/],
    [
      Object.assign(new Error('x'), { name: 'ParameterNotFound', $metadata: {} }),
      /^SSM answered ParameterNotFound: x$/,
    ],
  ])('describes %s', (error, expected) => {
    expect(describeAwsError(error)).toMatch(expected);
  });
});
