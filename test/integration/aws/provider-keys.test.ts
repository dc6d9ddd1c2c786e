import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createParameterSource } from '../../../lambda/aws/parameter-snapshot.js';
import { createAwsProviderKeys } from '../../../lambda/aws/provider-keys.js';
import type { RemoteKeyReaders } from '../../../lambda/aws/remote-keys.js';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';
import { remoteKeyReaders } from '../../../lambda/wiring/aws-container.js';
import { createFakeClock, type FakeClock } from '../../helpers/fake-clock.js';
import { type FakeSsm, fakeSsmClient, startFakeSsm } from '../../helpers/fake-ssm.js';
import { recordingLog } from '../../helpers/recording-log.js';

let ssm: FakeSsm;
let ssmReaders: RemoteKeyReaders;
let clock: FakeClock;
const { log, lines } = recordingLog('info', 'warn', 'error');

beforeAll(async () => {
  ssm = await startFakeSsm();
  const client = fakeSsmClient(ssm);
  // Secrets Manager has no local server: these tests give it an in-process reader instead.
  // Retries pause on the test's fake clock (each test's own), so a throttled read waits for `advance`.
  ssmReaders = remoteKeyReaders(
    { ssm: client, secretsManager: new SecretsManagerClient({}) },
    {
      budgetMs: 3_000,
      clock: { now: () => clock.now() },
      random: () => 0.5,
      sleep: (ms, signal) => clock.sleep(ms, signal),
    },
  );
});
afterAll(() => ssm.close());

let run = 0;
let prefix = '';
beforeEach(() => {
  run += 1;
  prefix = `/pk-${run}`;
  lines.length = 0;
  clock = createFakeClock();
});

const settle = () => new Promise((resolve) => setTimeout(resolve, 30));
/** Waits (real time, up to 5 s) until the background read has landed: a loaded machine may take longer than `settle`. */
const eventually = (check: () => void) => vi.waitFor(check, { timeout: 5_000, interval: 20 });

function keysFor(providers: Record<string, string | undefined>, secrets = new Map<string, string>()) {
  const config = parseConfig({
    providers: Object.fromEntries(
      Object.entries(providers).map(([name, secret]) => [
        name,
        { type: 'openai', baseURL: 'http://127.0.0.1:9/v1', ...(secret ? { apiKeySecret: secret } : {}) },
      ]),
    ),
    models: { m: { provider: Object.keys(providers)[0], model: 'x' } },
    pipelines: { p: { chain: 'm' } },
  });
  const client = fakeSsmClient(ssm);
  const random = () => 0.5; // no jitter: lifetimes and backoffs are exact
  const source = createParameterSource({ client, prefix, cacheMs: 30_000, log, clock, random });
  const readers: RemoteKeyReaders = {
    ssmBatch: ssmReaders.ssmBatch,
    secret: async (name) => secrets.get(name),
  };
  return createAwsProviderKeys({ config, source, readers, log, clock, random });
}

const byPath = () => ssm.requests.filter((r) => r.target === 'GetParametersByPath' && r.body.Path === prefix);
const batches = () =>
  ssm.requests.filter(
    (r) =>
      r.target === 'GetParameters' && (r.body.Names as string[]).some((n) => n.startsWith(`/out-${run}`)),
  );

describe('AWS provider keys', () => {
  it('answers keys under the prefix from the snapshot, without a call of their own', async () => {
    ssm.put(`${prefix}/keys/openai`, ' sk-openai ', { type: 'SecureString' });
    ssm.put(`${prefix}/keys/groq`, 'sk-groq', { type: 'SecureString' });
    const keys = keysFor({ openai: `${prefix}/keys/openai`, groq: `${prefix}/keys/groq`, local: undefined });
    await keys.load();
    expect(keys.apiKey('openai')).toBe('sk-openai');
    expect(keys.apiKey('groq')).toBe('sk-groq');
    expect(keys.apiKey('local')).toBe('not-needed');
    expect(byPath()).toHaveLength(1);
    expect(ssm.requests.filter((r) => r.target === 'GetParameter')).toHaveLength(0);
  });

  it('answers undefined for a missing key, logs it once, and uses it once it exists (next snapshot)', async () => {
    const keys = keysFor({ openai: `${prefix}/keys/openai` });
    await keys.load();
    expect(keys.apiKey('openai')).toBeUndefined();
    expect(keys.apiKey('openai')).toBeUndefined();
    expect(lines.filter((l) => l.message.startsWith('provider key missing'))).toHaveLength(1);
    ssm.put(`${prefix}/keys/openai`, 'sk-new', { type: 'SecureString' });
    clock.advance(30_000);
    keys.apiKey('openai'); // kicks the due read in the background
    await eventually(() => expect(keys.apiKey('openai')).toBe('sk-new'));
    expect(lines.at(-1)).toMatchObject({ message: 'provider key loaded', fields: { provider: 'openai' } });
    expect(JSON.stringify(lines)).not.toContain('sk-new');
  });

  it('answers a Vertex provider its service-account key JSON from SSM, in the prefix or outside it', async () => {
    const json = JSON.stringify({ type: 'service_account', client_email: 'sa@p.iam.gserviceaccount.com' });
    ssm.put(`${prefix}/keys/vertex`, json, { type: 'SecureString' });
    ssm.put(`/out-${run}/keys/vertex-eu`, json, { type: 'SecureString' });
    const vertex = (apiKeySecret?: string) => ({
      type: 'vertex',
      project: 'acme-prod',
      location: 'us-central1',
      ...(apiKeySecret ? { apiKeySecret } : { credentialsFile: './sa.json' }),
    });
    const config = parseConfig({
      providers: {
        vertex: vertex(`${prefix}/keys/vertex`),
        'vertex-eu': vertex(`/out-${run}/keys/vertex-eu`),
        'vertex-laptop': vertex(),
      },
      models: { g: { provider: 'vertex', model: 'google/gemini-2.0-flash-001' } },
    });
    const client = fakeSsmClient(ssm);
    const random = () => 0.5;
    const source = createParameterSource({ client, prefix, cacheMs: 30_000, log, clock, random });
    const keys = createAwsProviderKeys({ config, source, readers: ssmReaders, log, clock, random });
    await keys.load();
    expect(keys.apiKey('vertex')).toBe(json);
    expect(keys.apiKey('vertex-eu')).toBe(json);
    // A key that exists only on a laptop is no key in AWS, never a placeholder.
    expect(keys.apiKey('vertex-laptop')).toBeUndefined();
    expect(keys.keyHint('vertex')).toBe(`${prefix}/keys/vertex`);
  });

  it('batches keys outside the prefix into GetParameters calls of at most 10 names', async () => {
    const providers: Record<string, string> = {};
    for (let i = 0; i < 12; i += 1) {
      providers[`p${i}`] = `/out-${run}/keys/p${i}`;
      ssm.put(`/out-${run}/keys/p${i}`, `sk-${i}`, { type: 'SecureString' });
    }
    const keys = keysFor(providers);
    await keys.load();
    expect(batches().map((r) => (r.body.Names as string[]).length)).toEqual([10, 2]);
    expect(batches()[0]?.body.WithDecryption).toBe(true);
    expect(keys.apiKey('p11')).toBe('sk-11');
  });

  it('keeps the keys of one batch due together: one GetParameters per lifetime, not one per key', async () => {
    const providers = { a: `/out-${run}/keys/a`, b: `/out-${run}/keys/b`, c: `/out-${run}/keys/c` };
    for (const name of Object.values(providers)) ssm.put(name, 'sk', { type: 'SecureString' });
    const keys = keysFor(providers);
    await keys.load();
    for (let minute = 1; minute <= 15; minute += 1) {
      clock.advance(60_000);
      await keys.load();
    }
    expect(batches()).toHaveLength(4); // at 0, 5, 10 and 15 min
  });

  it('re-reads a missing key outside the prefix after 1 s, 2 s, 4 s … up to 60 s', async () => {
    const keys = keysFor({ openai: `/out-${run}/keys/openai` });
    await keys.load();
    const times: number[] = [];
    const start = clock.now();
    for (let step = 0; step < 130_000; step += 500) {
      clock.advance(500);
      const before = batches().length;
      await keys.load(); // joins the read apiKey() would kick, if one is due
      if (batches().length > before) times.push(clock.now() - start);
    }
    expect(times).toEqual([1_000, 3_000, 7_000, 15_000, 31_000, 63_000, 123_000]);
  });

  it('picks up a rotated key outside the prefix after its lifetime, and keeps it while SSM fails', async () => {
    const name = `/out-${run}/keys/openai`;
    ssm.put(name, 'sk-old', { type: 'SecureString' });
    const keys = keysFor({ openai: name });
    await keys.load();
    ssm.put(name, 'sk-rotated', { type: 'SecureString' });
    clock.advance(299_999);
    keys.apiKey('openai');
    await settle();
    expect(keys.apiKey('openai')).toBe('sk-old');
    clock.advance(1);
    ssm.fail('GetParameters', { type: 'ThrottlingException' });
    keys.apiKey('openai');
    await settle();
    expect(keys.apiKey('openai')).toBe('sk-old');
    clock.advance(1_000);
    keys.apiKey('openai');
    await eventually(() => expect(keys.apiKey('openai')).toBe('sk-rotated'));
  });

  it('reads Secrets Manager names one by one, and drops a secret that no longer exists', async () => {
    const secrets = new Map([['switchyard/openrouter', 'sk-or']]);
    const keys = keysFor({ openrouter: 'switchyard/openrouter' }, secrets);
    await keys.load();
    expect(keys.apiKey('openrouter')).toBe('sk-or');
    secrets.delete('switchyard/openrouter');
    clock.advance(300_000);
    keys.apiKey('openrouter');
    await eventually(() => expect(keys.apiKey('openrouter')).toBeUndefined());
  });
});
