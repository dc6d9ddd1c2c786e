import { beforeEach, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../helpers/cli-harness.js';
import { useOperatorAws } from '../helpers/operator-aws.js';

const SSM_KEY = '/switchyard/keys/openai';
const SECRET = 'switchyard/openrouter';
const KEY = 'sk-proj-NeverPrintThis-0123456789';

/** One provider per kind of key location, as `provider-keys` must treat each. */
const KEYS_CONFIG = {
  providers: {
    openai: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1', apiKeySecret: SSM_KEY },
    openrouter: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1', apiKeySecret: SECRET },
    local: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1' },
    laptop: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1', apiKeyEnv: 'LAPTOP_KEY' },
    bedrock: { type: 'bedrock', region: 'us-east-1' },
  },
  models: {
    a: { provider: 'openai', model: 'gpt-4o-mini' },
    b: { provider: 'openrouter', model: 'meta/llama' },
  },
  pipelines: { p: { chain: 'a,b' } },
};

const aws = useOperatorAws(KEYS_CONFIG);
beforeEach(() => {
  aws.ssm.delete(SSM_KEY);
  aws.secrets.delete(SECRET);
});

const providerKeys = (args: string[], stdin?: string, extraEnv: NodeJS.ProcessEnv = {}) =>
  runCliCaptured(
    ['provider-keys', ...args, '--config', aws.config],
    { ...aws.env, ...extraEnv },
    process.cwd(),
    stdin,
  );

describe('switchyard provider-keys set', () => {
  it('writes an SSM SecureString (Overwrite) from standard input, and never prints the key', async () => {
    const first = await providerKeys(['set', 'openai'], `${KEY}\n`);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toBe(
      'stored the key of provider openai in SSM parameter /switchyard/keys/openai (SecureString, version 1)\n' +
        'running Lambda containers read it at their next provider-key refresh; no deploy needed\n',
    );
    expect(aws.ssm.versions(SSM_KEY)[0]).toMatchObject({ value: KEY, type: 'SecureString' });
    const second = await providerKeys(['set', 'openai'], 'sk-rotated\n');
    expect(second.stdout).toContain('(SecureString, version 2)');
    expect(aws.ssm.value(SSM_KEY)).toBe('sk-rotated');
    expect(first.stdout + second.stdout).not.toContain(KEY);
  });

  it('creates the Secrets Manager secret when it does not exist, then puts new versions', async () => {
    const created = await providerKeys(['set', 'openrouter'], KEY);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(
      'stored the key of provider openrouter in Secrets Manager secret switchyard/openrouter (created)',
    );
    const rotated = await providerKeys(['set', 'openrouter'], 'sk-or-2\n');
    expect(rotated.stdout).toContain('Secrets Manager secret switchyard/openrouter (new version)');
    expect(aws.secrets.values(SECRET)).toEqual([KEY, 'sk-or-2']);
    expect(aws.secrets.requests.map((r) => r.target)).toEqual([
      'PutSecretValue',
      'CreateSecret',
      'PutSecretValue',
    ]);
  });

  it.each([
    ['an empty input', '', 'the key is empty; nothing written'],
    ['only a newline', '  \n', 'the key is empty; nothing written'],
    [
      'two lines',
      'sk-one\nsk-two\n',
      'the key contains whitespace or a line break; nothing written (pass exactly one line)',
    ],
  ])('refuses %s with status 2 and writes nothing', async (_case, stdin, message) => {
    const out = await providerKeys(['set', 'openai'], stdin);
    expect(out).toMatchObject({ code: 2, stdout: '' });
    expect(out.stderr).toBe(`switchyard provider-keys: ${message}\n`);
    expect(aws.ssm.versions(SSM_KEY)).toHaveLength(0);
  });

  it('never takes the key from the command line', async () => {
    const out = await providerKeys(['set', 'openai', KEY]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('usage: switchyard provider-keys set <provider>');
    expect(out.stderr).not.toContain(KEY);
    expect(aws.ssm.versions(SSM_KEY)).toHaveLength(0);
  });

  it.each([
    ['bedrock', 'provider bedrock needs no key (Bedrock: the IAM role); nothing to set'],
    ['local', 'provider local needs no key (keyless endpoint); nothing to set'],
    ['laptop', 'providers.laptop names no apiKeySecret (only apiKeyEnv LAPTOP_KEY'],
    ['nosuch', "unknown provider 'nosuch' (configured: bedrock, laptop, local, openai, openrouter)"],
  ])('refuses provider %s with status 2 before reading any input', async (provider, message) => {
    const out = await providerKeys(['set', provider], KEY);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(message);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('exits 1 with one line, naming the secret, when Secrets Manager refuses the write', async () => {
    aws.secrets.create(SECRET, 'sk-old');
    aws.secrets.scheduleDeletion(SECRET);
    const out = await providerKeys(['set', 'openrouter'], KEY);
    expect(out.code).toBe(1);
    expect(out.stderr).toBe(
      "switchyard provider-keys: writing Secrets Manager switchyard/openrouter: Secrets Manager answered InvalidRequestException: You can't perform this operation on the secret because it was marked for deletion.\n",
    );
  });

  it('refuses to run without a standard input to read from', async () => {
    const out = await providerKeys(['set', 'openai']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('no standard input to read the key from');
  });
});

describe('switchyard provider-keys list', () => {
  it('shows every provider, where its key lives and whether it exists, without reading a value', async () => {
    aws.ssm.put(SSM_KEY, KEY, { type: 'SecureString' });
    const out = await providerKeys(['list']);
    expect(out.code).toBe(0);
    const rows = out.stdout.split('\n');
    expect(rows[0]).toMatch(/^PROVIDER +STORE +NAME +STATUS$/);
    expect(rows[1]).toMatch(/^bedrock +- +- +no key needed \(Bedrock: the IAM role\)$/);
    expect(rows[2]).toMatch(
      /^laptop +- +- +no apiKeySecret in the config \(apiKeyEnv LAPTOP_KEY is local only\)$/,
    );
    expect(rows[3]).toMatch(/^local +- +- +no key needed \(keyless endpoint\)$/);
    expect(rows[4]).toMatch(
      /^openai +SSM +\/switchyard\/keys\/openai +set \(version 1, \d{4}-\d\d-\d\dT[\d:]{8}Z\)$/,
    );
    expect(rows[5]).toMatch(/^openrouter +Secrets Manager +switchyard\/openrouter +MISSING$/);
    expect(out.stdout).toContain(
      'to set a key: switchyard provider-keys set <provider> (needed: openrouter)',
    );
    expect(out.stdout).not.toContain(KEY);
    const reads = aws.ssm.requests.filter((r) => r.target === 'GetParameters');
    expect(reads.at(-1)?.body).toEqual({ Names: [SSM_KEY], WithDecryption: false });
    expect(aws.secrets.requests.filter((r) => r.target === 'GetSecretValue')).toHaveLength(0);
  });

  it('flags a key stored as plain String, a secret with no value and one scheduled for deletion', async () => {
    aws.ssm.put(SSM_KEY, KEY, { type: 'String' });
    aws.secrets.create(SECRET);
    const noValue = await providerKeys(['list']);
    expect(noValue.stdout).toMatch(/openai .*set \(version 1, .*\); stored as String, not SecureString$/m);
    expect(noValue.stdout).toMatch(/openrouter .*UNUSABLE: the secret has no current value$/m);
    aws.secrets.delete(SECRET);
    aws.secrets.create(SECRET, 'sk-old');
    aws.secrets.scheduleDeletion(SECRET);
    const deleting = await providerKeys(['list']);
    expect(deleting.stdout).toMatch(/openrouter .*UNUSABLE: scheduled for deletion on \d{4}-/m);
  });

  it('marks one name it may not read, and still lists the others', async () => {
    aws.secrets.fail('DescribeSecret', { type: 'AccessDeniedException', message: 'not allowed' });
    const out = await providerKeys(['list']);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(
      /openrouter +Secrets Manager +switchyard\/openrouter +UNKNOWN: Secrets Manager answered AccessDeniedException: not allowed$/m,
    );
    expect(out.stdout).toMatch(/^openai +SSM .* MISSING$/m);
  });

  it('exits 1 with one line when SSM cannot be reached', async () => {
    const out = await providerKeys(['list'], undefined, { AWS_ENDPOINT_URL_SSM: 'http://127.0.0.1:9' });
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(
      /^switchyard provider-keys: checking \/switchyard\/keys\/openai: cannot reach SSM \(ECONNREFUSED\)/,
    );
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
  });
});
