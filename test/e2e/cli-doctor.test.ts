import { beforeEach, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../lambda/http/caller-auth.js';
import { runCliCaptured, writeTempConfig } from '../helpers/cli-harness.js';
import { useOperatorAws } from '../helpers/operator-aws.js';

const DEPLOYED = {
  providers: {
    openai: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1', apiKeySecret: '/switchyard/keys/openai' },
    openrouter: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1', apiKeySecret: 'switchyard/openrouter' },
    bedrock: { type: 'bedrock', region: 'us-east-1' },
  },
  models: {
    a: { provider: 'openai', model: 'gpt-4o-mini' },
    b: { provider: 'openrouter', model: 'meta/llama' },
    haiku: { provider: 'bedrock', model: 'us.anthropic.claude-3-5-haiku-20241022-v1:0' },
  },
  pipelines: { p: { chain: 'a,b' }, q: { chain: 'haiku' } },
};

const aws = useOperatorAws(DEPLOYED);
beforeEach(() => {
  for (const name of [
    '/switchyard/keys/openai',
    '/switchyard/caller-keys',
    '/switchyard/chains/p',
    '/switchyard/chains/q',
    '/switchyard/chains/gone',
  ])
    aws.ssm.delete(name);
  aws.secrets.delete('switchyard/openrouter');
});

/** Every key and a caller key in place: what a finished first deploy looks like. */
function provision() {
  aws.ssm.put('/switchyard/keys/openai', 'sk-openai', { type: 'SecureString' });
  aws.secrets.create('switchyard/openrouter', 'sk-or');
  aws.ssm.put('/switchyard/caller-keys', JSON.stringify({ app: sha256Hex('sy-app') }), {
    type: 'SecureString',
  });
}

const doctor = (extraEnv: NodeJS.ProcessEnv = {}, configPath = aws.config) =>
  runCliCaptured(['doctor', '--config', configPath], { ...aws.env, ...extraEnv });

/** The check lines only (not the header and the summary), timestamps masked. */
const checks = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => /^(ok|warn|FIX) /.test(l))
    .map((l) => l.replace(/\d{4}-\d\d-\d\dT[\d:]{8}Z/g, 'TIME'));

describe('switchyard doctor', () => {
  it('passes a provisioned deployment: one ok line per check, exit 0', async () => {
    provision();
    const out = await doctor();
    expect(out).toMatchObject({ code: 0, stderr: '' });
    expect(out.stdout.split('\n')[0]).toBe(
      `switchyard doctor: config ${aws.config}, SSM prefix /switchyard, region us-east-1`,
    );
    expect(checks(out.stdout)).toEqual([
      'ok    provider key bedrock: no key needed (Bedrock: the IAM role)',
      'ok    provider key openai: SSM /switchyard/keys/openai (version 1, TIME)',
      'ok    provider key openrouter: Secrets Manager switchyard/openrouter (TIME)',
      'ok    caller keys: 1 in /switchyard/caller-keys (version 1)',
      'ok    chain overrides: none under /switchyard/chains/; every pipeline runs on its config chain',
      'ok    bedrock models: 1 model, by inference profile',
    ]);
    expect(out.stdout.endsWith('\nready: 6 checks ok\n')).toBe(true);
  });

  it('fails a fresh deployment and prints the exact command for each fix', async () => {
    const out = await doctor();
    expect(out.code).toBe(1);
    expect(checks(out.stdout)).toEqual([
      'ok    provider key bedrock: no key needed (Bedrock: the IAM role)',
      `FIX   provider key openai: missing at SSM /switchyard/keys/openai → switchyard provider-keys set openai --config ${aws.config}`,
      `FIX   provider key openrouter: missing at Secrets Manager switchyard/openrouter → switchyard provider-keys set openrouter --config ${aws.config}`,
      `FIX   caller keys: /switchyard/caller-keys does not exist, so the API refuses every caller → switchyard keys issue <name> --ssm --config ${aws.config}`,
      'ok    chain overrides: none under /switchyard/chains/; every pipeline runs on its config chain',
      'ok    bedrock models: 1 model, by inference profile',
    ]);
    expect(out.stdout.endsWith('\nnot ready: 3 to fix, 3 ok\n')).toBe(true);
  });

  it('fails on a caller-keys parameter that holds no keys', async () => {
    provision();
    aws.ssm.put('/switchyard/caller-keys', '{}', { type: 'SecureString' });
    const out = await doctor();
    expect(out.code).toBe(1);
    expect(out.stdout).toContain(
      'FIX   caller keys: /switchyard/caller-keys holds no keys, so the API refuses every caller',
    );
  });

  it('fails on an override that resolves to no model; warns on one with warnings and on an orphan', async () => {
    provision();
    aws.ssm.put('/switchyard/chains/p', 'retired-model');
    aws.ssm.put('/switchyard/chains/q', 'haiku,zzz');
    aws.ssm.put('/switchyard/chains/gone', 'a');
    const out = await doctor();
    expect(out.code).toBe(1);
    expect(checks(out.stdout).filter((l) => l.includes('chain override'))).toEqual([
      `warn  chain override gone: the config has no pipeline gone, so nothing routes by /switchyard/chains/gone → switchyard chain clear gone --config ${aws.config}`,
      `FIX   chain override p: 'retired-model' resolves to no model (unknown model 'retired-model' at 0); the gateway skips it and routes by the config chain → switchyard chain set p "<chain>" --config ${aws.config} or switchyard chain clear p --config ${aws.config}`,
      "warn  chain override q: 'haiku,zzz' is in force, with warnings: unknown model 'zzz' at 6",
    ]);
    expect(out.stdout.endsWith('\nnot ready: 1 to fix, 2 warnings, 5 ok\n')).toBe(true);
  });

  it('reads a timed override or a canary, checking every chain it holds', async () => {
    provision();
    aws.ssm.put(
      '/switchyard/chains/p',
      JSON.stringify({ timed: { chain: 'b', until: '2099-01-01T00:00:00Z', pin: true } }),
    );
    aws.ssm.put(
      '/switchyard/chains/q',
      JSON.stringify({
        chain: 'haiku',
        canary: { chain: 'retired', percent: 10, since: '2026-12-01T00:00:00Z' },
      }),
    );
    const out = await doctor();
    expect(checks(out.stdout).filter((l) => l.includes('chain override'))).toEqual([
      "ok    chain override p: 'pin b until TIME; then (the config chain)' is in force",
      `FIX   chain override q: 'retired' resolves to no model (unknown model 'retired' at 0); the gateway skips it and routes by the config chain → switchyard chain set q "<chain>" --config ${aws.config} or switchyard chain clear q --config ${aws.config}`,
    ]);
  });

  it('passes once the broken override is cleared, with warnings only', async () => {
    provision();
    aws.ssm.put('/switchyard/chains/p', 'retired-model');
    aws.ssm.put('/switchyard/chains/q', 'haiku,zzz');
    expect((await doctor()).code).toBe(1);
    expect((await runCliCaptured(['chain', 'clear', 'p', '--config', aws.config], aws.env)).code).toBe(0);
    const out = await doctor();
    expect(out.code).toBe(0);
    expect(out.stdout.endsWith('\nready: 5 checks ok, 1 warning\n')).toBe(true);
  });

  it('warns (without failing) about Bedrock models named by a bare base model id', async () => {
    provision();
    const bare = writeTempConfig({
      ...DEPLOYED,
      models: {
        ...DEPLOYED.models,
        llama: { provider: 'bedrock', model: 'meta.llama3-3-70b-instruct-v1:0' },
      },
    });
    const out = await doctor({}, bare);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(
      "warn  bedrock model llama: 'meta.llama3-3-70b-instruct-v1:0' is a base model id; on-demand calls may need the inference profile 'us.meta.llama3-3-70b-instruct-v1:0' (aws bedrock list-inference-profiles --region us-east-1) → change models.llama.model",
    );
    expect(out.stdout).not.toContain('bedrock model haiku');
  });

  it('checks the names under SWITCHYARD_SSM_PREFIX', async () => {
    provision();
    const out = await doctor({ SWITCHYARD_SSM_PREFIX: '/staging' });
    expect(out.code).toBe(1);
    expect(out.stdout).toContain('SSM prefix /staging');
    expect(out.stdout).toContain('FIX   caller keys: /staging/caller-keys does not exist');
    // Provider keys live where the config says, whatever the prefix.
    expect(out.stdout).toContain('ok    provider key openai: SSM /switchyard/keys/openai');
  });

  it('prints commands without --config when the config came from SWITCHYARD_CONFIG', async () => {
    const out = await runCliCaptured(['doctor'], { ...aws.env, SWITCHYARD_CONFIG: aws.config });
    expect(out.stdout).toContain('→ switchyard provider-keys set openai\n');
  });

  it('says it cannot check, in one line per check and without a stack trace, when AWS is unreachable', async () => {
    const out = await doctor({
      AWS_ENDPOINT_URL_SSM: 'http://127.0.0.1:9',
      AWS_ENDPOINT_URL_SECRETS_MANAGER: 'http://127.0.0.1:9',
    });
    expect(out.code).toBe(1);
    expect(out.stderr).toBe('');
    expect(out.stdout).not.toMatch(/\n\s+at /);
    const lines = checks(out.stdout);
    expect(lines[0]).toMatch(
      /^FIX {3}provider keys: cannot check: checking \/switchyard\/keys\/openai: cannot reach SSM \(ECONNREFUSED\); check the network, AWS_REGION or AWS_ENDPOINT_URL_SSM$/,
    );
    expect(lines[1]).toMatch(/^FIX {3}caller keys: cannot check: cannot reach SSM \(ECONNREFUSED\)/);
    expect(lines[2]).toMatch(/^FIX {3}chain overrides: cannot check: cannot reach SSM \(ECONNREFUSED\)/);
    expect(lines[3]).toBe('ok    bedrock models: 1 model, by inference profile');
  });

  it('refuses arguments with status 2 and prints its usage for --help', async () => {
    const extra = await runCliCaptured(['doctor', 'now'], aws.env);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain('usage: switchyard doctor [--config FILE]');
    const before = aws.ssm.requests.length;
    const help = await runCliCaptured(['doctor', '--help'], aws.env);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(
      /^usage: switchyard doctor \[--config FILE\] \[--keys-table NAME\] \[--alarm-topic ARN\]\n/,
    );
    expect(aws.ssm.requests.length).toBe(before);
  });
});
