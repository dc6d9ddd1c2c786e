import type { SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createParameterSource } from '../../../lambda/aws/parameter-snapshot.js';
import {
  CallerKeysValueError,
  callerKeysParameterName,
  createSsmCallerKeys,
  readCallerKeysParameter,
  writeCallerKeysParameter,
} from '../../../lambda/aws/ssm-caller-keys.js';
import {
  type CallerKeySource,
  CallerKeysUnavailableError,
  sha256Hex,
} from '../../../lambda/http/caller-auth.js';
import { createFakeClock, type FakeClock } from '../../helpers/fake-clock.js';
import { type FakeSsm, fakeSsmClient, startFakeSsm } from '../../helpers/fake-ssm.js';
import { recordingLog } from '../../helpers/recording-log.js';

const NAME = callerKeysParameterName('/sy-test');
const HASH_A = sha256Hex('sy-a');
const HASH_B = sha256Hex('sy-b');

let ssm: FakeSsm;
let client: SSMClient;
let clock: FakeClock;
const { log, lines: errors } = recordingLog('error');

beforeAll(async () => {
  ssm = await startFakeSsm();
  client = fakeSsmClient(ssm);
});
afterAll(() => ssm.close());
beforeEach(() => {
  ssm.delete(NAME);
  errors.length = 0;
  clock = createFakeClock();
});

const keysWith = ({ maxStaleMs = 300_000 }: { maxStaleMs?: number } = {}) =>
  createSsmCallerKeys({
    // random 0.5 → no jitter: every lifetime is exactly cacheMs.
    source: createParameterSource({
      client,
      prefix: '/sy-test',
      cacheMs: 30_000,
      log,
      clock,
      random: () => 0.5,
    }),
    log,
    clock,
    maxStaleMs,
  });
const reads = () => ssm.requests.filter((r) => r.target === 'GetParametersByPath').length;
const refusal = async (keys: CallerKeySource) => {
  const error = await keys.hashes().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CallerKeysUnavailableError);
  return error as CallerKeysUnavailableError;
};

describe('SSM caller keys', () => {
  it('reads the SecureString, decrypted, from the one recursive read of the prefix', async () => {
    ssm.put(NAME, JSON.stringify({ a: HASH_A }), { type: 'SecureString' });
    expect(await keysWith().hashes()).toEqual(new Map([['a', HASH_A]]));
    expect(ssm.requests.at(-1)).toMatchObject({
      target: 'GetParametersByPath',
      body: { Path: '/sy-test', Recursive: true, WithDecryption: true },
    });
  });

  it('trusts a key set for cacheMs, then reads again (a revoked key stops working)', async () => {
    ssm.put(NAME, JSON.stringify({ a: HASH_A }), { type: 'SecureString' });
    const keys = keysWith();
    await keys.hashes();
    const before = reads();
    ssm.put(NAME, JSON.stringify({ b: HASH_B }), { type: 'SecureString' });
    clock.advance(29_999);
    expect([...((await keys.hashes()) ?? [])]).toEqual([['a', HASH_A]]);
    expect(reads()).toBe(before);
    clock.advance(1);
    expect([...((await keys.hashes()) ?? [])]).toEqual([['b', HASH_B]]);
  });

  it('shares one read among concurrent requests', async () => {
    ssm.put(NAME, JSON.stringify({ a: HASH_A }), { type: 'SecureString' });
    const keys = keysWith();
    const before = reads();
    await Promise.all([keys.hashes(), keys.hashes(), keys.hashes()]);
    expect(reads()).toBe(before + 1);
  });

  it('keeps the last good set while SSM fails, up to the maximum stale age, then refuses with 503', async () => {
    ssm.put(NAME, JSON.stringify({ a: HASH_A }), { type: 'SecureString' });
    const keys = keysWith({ maxStaleMs: 120_000 });
    await keys.hashes();
    ssm.fail('GetParametersByPath', { type: 'ThrottlingException' }, 1_000);
    clock.advance(120_000);
    expect((await keys.hashes())?.get('a')).toBe(HASH_A);
    clock.advance(1);
    const error = await refusal(keys);
    expect(error.message).toContain('120001 ms old');
    expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(errors.map((e) => e.message)).toContain('caller keys too old; refusing callers');
    ssm.fail('GetParametersByPath', { type: 'ThrottlingException' }, 0);
    clock.advance(30_000);
    expect((await keys.hashes())?.get('a')).toBe(HASH_A);
  });

  it('never lets the maximum stale age undercut the cache lifetime', async () => {
    ssm.put(NAME, JSON.stringify({ a: HASH_A }), { type: 'SecureString' });
    const keys = keysWith({ maxStaleMs: 1_000 });
    await keys.hashes();
    ssm.fail('GetParametersByPath', { type: 'ThrottlingException' }, 1_000);
    clock.advance(36_000); // 30 s × 1.2: the longest a healthy container waits between reads.
    expect((await keys.hashes())?.get('a')).toBe(HASH_A);
    clock.advance(1);
    await refusal(keys);
    ssm.fail('GetParametersByPath', { type: 'ThrottlingException' }, 0);
  });

  it('keeps the last good set when the value stops being valid JSON', async () => {
    ssm.put(NAME, JSON.stringify({ a: HASH_A }), { type: 'SecureString' });
    const keys = keysWith();
    await keys.hashes();
    ssm.put(NAME, '{"a": "not-a-hash"}', { type: 'SecureString' });
    clock.advance(30_000);
    expect((await keys.hashes())?.get('a')).toBe(HASH_A);
    expect(errors[0]).toMatchObject({
      message: 'caller keys unreadable; keeping the last good set',
      fields: { error: 'CallerKeysValueError' },
    });
  });

  it('refuses with 503 (not an empty set) when it has never read a good set, and reads again after the backoff', async () => {
    ssm.put(NAME, JSON.stringify({ a: HASH_A }), { type: 'SecureString' });
    ssm.fail('GetParametersByPath', { type: 'InternalServerError', status: 500 });
    const keys = keysWith();
    expect((await refusal(keys)).retryAfterSeconds).toBe(1);
    const before = reads();
    clock.advance(999);
    await refusal(keys);
    expect(reads()).toBe(before);
    clock.advance(1);
    expect((await keys.hashes())?.size).toBe(1);
  });

  it('refuses with 503 when the only value ever read is invalid', async () => {
    ssm.put(NAME, 'not json', { type: 'SecureString' });
    expect((await refusal(keysWith())).message).toBe('no valid caller keys read yet');
    expect(errors[0]?.message).toBe('caller keys unreadable; refusing callers');
  });

  it('refuses everyone (an empty set: 401) when SSM answers and the parameter does not exist', async () => {
    expect((await keysWith().hashes())?.size).toBe(0);
    expect(errors[0]?.message).toBe('no caller keys in SSM; every caller is refused');
  });
});

describe('caller keys parameter', () => {
  it('writes an Intelligent-Tiering SecureString and reads it back with its version', async () => {
    expect(await readCallerKeysParameter(client, NAME)).toEqual({ keys: {}, version: undefined });
    expect(await writeCallerKeysParameter(client, NAME, { a: HASH_A }, 'test')).toBe(1);
    expect(ssm.versions(NAME)[0]?.type).toBe('SecureString');
    expect(ssm.requests.at(-1)?.body).toMatchObject({ Tier: 'Intelligent-Tiering' });
    expect(await readCallerKeysParameter(client, NAME)).toEqual({ keys: { a: HASH_A }, version: 1 });
  });

  it('grows from Standard (52 keys with 8-character names) to Advanced (105), and refuses 106', async () => {
    const set = (n: number) =>
      Object.fromEntries(
        Array.from({ length: n }, (_, i) => {
          const name = `key-${String(i).padStart(4, '0')}`;
          return [name, sha256Hex(name)];
        }),
      );
    expect(JSON.stringify(set(52)).length).toBeLessThanOrEqual(4096);
    expect(JSON.stringify(set(53)).length).toBeGreaterThan(4096);
    await writeCallerKeysParameter(client, NAME, set(105), 'capacity');
    expect(Object.keys((await readCallerKeysParameter(client, NAME)).keys)).toHaveLength(105);
    await expect(writeCallerKeysParameter(client, NAME, set(106), 'capacity')).rejects.toMatchObject({
      name: 'ValidationException',
    });
  });

  it.each([['not json'], ['["a"]'], ['{"a": "ABC"}'], [`{"bad name": "${HASH_A}"}`]])(
    'refuses the value %s with a CallerKeysValueError naming the parameter',
    async (value) => {
      ssm.put(NAME, value, { type: 'SecureString' });
      const error = await readCallerKeysParameter(client, NAME).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CallerKeysValueError);
      expect((error as Error).message).toContain(NAME);
    },
  );
});
