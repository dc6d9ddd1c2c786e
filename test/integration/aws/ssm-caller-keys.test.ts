import { SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CallerKeysValueError,
  callerKeysParameterName,
  createSsmCallerKeys,
  readCallerKeysParameter,
  writeCallerKeysParameter,
} from '../../../lambda/aws/ssm-caller-keys.js';
import type { LogFields } from '../../../lambda/core/logger.js';
import { sha256Hex } from '../../../lambda/http/caller-auth.js';
import { createFakeClock, type FakeClock } from '../../helpers/fake-clock.js';
import { type FakeSsm, startFakeSsm } from '../../helpers/fake-ssm.js';

const NAME = callerKeysParameterName('/sy-test');
const HASH_A = sha256Hex('sy-a');
const HASH_B = sha256Hex('sy-b');

let ssm: FakeSsm;
let client: SSMClient;
let clock: FakeClock;
const errors: { message: string; fields: LogFields | undefined }[] = [];
const log = {
  debug() {},
  info() {},
  warn() {},
  error: (message: string, fields?: LogFields) => errors.push({ message, fields }),
};

beforeAll(async () => {
  ssm = await startFakeSsm();
  client = new SSMClient({
    endpoint: ssm.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKID', secretAccessKey: 'fake' },
    maxAttempts: 1,
  });
});
afterAll(() => ssm.close());
beforeEach(() => {
  ssm.delete(NAME);
  errors.length = 0;
  clock = createFakeClock();
});

const source = () => createSsmCallerKeys({ client, parameterName: NAME, log, cacheMs: 30_000, clock });
const gets = () => ssm.requests.filter((r) => r.target === 'GetParameter' && r.body.Name === NAME).length;

describe('SSM caller keys', () => {
  it('reads the SecureString with decryption and validates it', async () => {
    ssm.put(NAME, JSON.stringify({ a: HASH_A }), { type: 'SecureString' });
    expect(await source().hashes()).toEqual(new Map([['a', HASH_A]]));
    expect(ssm.requests.at(-1)?.body).toMatchObject({ Name: NAME, WithDecryption: true });
  });

  it('trusts a key set for cacheMs, then reads again (a revoked key stops working)', async () => {
    ssm.put(NAME, JSON.stringify({ a: HASH_A }), { type: 'SecureString' });
    const keys = source();
    await keys.hashes();
    const before = gets();
    ssm.put(NAME, JSON.stringify({ b: HASH_B }), { type: 'SecureString' });
    clock.advance(29_999);
    expect([...((await keys.hashes()) ?? [])]).toEqual([['a', HASH_A]]);
    expect(gets()).toBe(before);
    clock.advance(1);
    expect([...((await keys.hashes()) ?? [])]).toEqual([['b', HASH_B]]);
  });

  it('shares one read among concurrent requests', async () => {
    ssm.put(NAME, JSON.stringify({ a: HASH_A }), { type: 'SecureString' });
    const keys = source();
    const before = gets();
    await Promise.all([keys.hashes(), keys.hashes(), keys.hashes()]);
    expect(gets()).toBe(before + 1);
  });

  it('keeps the last good set when a read fails, and logs it', async () => {
    ssm.put(NAME, JSON.stringify({ a: HASH_A }), { type: 'SecureString' });
    const keys = source();
    await keys.hashes();
    clock.advance(30_000);
    ssm.fail('GetParameter', { type: 'ThrottlingException' });
    expect((await keys.hashes())?.get('a')).toBe(HASH_A);
    expect(errors[0]?.message).toBe('caller keys unreadable; keeping the last good set');
  });

  it('keeps the last good set when the value stops being valid JSON', async () => {
    ssm.put(NAME, JSON.stringify({ a: HASH_A }), { type: 'SecureString' });
    const keys = source();
    await keys.hashes();
    ssm.put(NAME, '{"a": "not-a-hash"}', { type: 'SecureString' });
    clock.advance(30_000);
    expect((await keys.hashes())?.get('a')).toBe(HASH_A);
    expect(errors[0]?.fields).toMatchObject({ error: 'CallerKeysValueError' });
  });

  it('refuses everyone (an empty set) when it has never read a good set, and retries soon', async () => {
    ssm.put(NAME, JSON.stringify({ a: HASH_A }), { type: 'SecureString' });
    ssm.fail('GetParameter', { type: 'InternalServerError', status: 500 });
    const keys = source();
    expect((await keys.hashes())?.size).toBe(0);
    expect(errors[0]?.message).toBe('caller keys unreadable; refusing callers');
    expect((await keys.hashes())?.size).toBe(0);
    clock.advance(1_000);
    expect((await keys.hashes())?.size).toBe(1);
  });

  it('refuses everyone when the parameter does not exist', async () => {
    expect((await source().hashes())?.size).toBe(0);
    expect(errors[0]?.message).toBe('no caller keys in SSM; every caller is refused');
  });
});

describe('caller keys parameter', () => {
  it('writes a SecureString and reads it back with its version', async () => {
    expect(await readCallerKeysParameter(client, NAME)).toEqual({ keys: {}, version: undefined });
    expect(await writeCallerKeysParameter(client, NAME, { a: HASH_A }, 'test')).toBe(1);
    expect(ssm.versions(NAME)[0]?.type).toBe('SecureString');
    expect(await readCallerKeysParameter(client, NAME)).toEqual({ keys: { a: HASH_A }, version: 1 });
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
