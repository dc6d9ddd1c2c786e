import type { SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createParameterSource,
  jittered,
  ParameterSnapshotUnavailableError,
} from '../../../lambda/aws/parameter-snapshot.js';
import { createSsmChainParameters } from '../../../lambda/aws/ssm-chain-parameters.js';
import { createFakeClock, type FakeClock } from '../../helpers/fake-clock.js';
import { type FakeSsm, fakeSsmClient, startFakeSsm } from '../../helpers/fake-ssm.js';
import { recordingLog } from '../../helpers/recording-log.js';

let ssm: FakeSsm;
let client: SSMClient;
let clock: FakeClock;
const { log, lines: warnings } = recordingLog('warn');

beforeAll(async () => {
  ssm = await startFakeSsm();
  client = fakeSsmClient(ssm);
});
afterAll(() => ssm.close());

let prefix = '';
let run = 0;
beforeEach(() => {
  // A fresh prefix per test: the fake keeps every parameter for the file's life.
  run += 1;
  prefix = `/snap-${run}`;
  warnings.length = 0;
  clock = createFakeClock();
  ssm.fail('GetParametersByPath', { type: 'none' }, 0);
});

const sourceWith = (random = () => 0.5, cacheMs = 30_000) =>
  createParameterSource({ client, prefix, cacheMs, log, clock, random });
const reads = () => ssm.requests.filter((r) => r.target === 'GetParametersByPath' && r.body.Path === prefix);

describe('parameter snapshot', () => {
  it('reads every parameter under the prefix in one recursive, decrypted call', async () => {
    ssm.put(`${prefix}/caller-keys`, '{}', { type: 'SecureString' });
    ssm.put(`${prefix}/keys/openai`, 'sk-1', { type: 'SecureString' });
    ssm.put(`${prefix}/chains/p`, 'a,b');
    ssm.put(`${prefix}x/not-mine`, 'x');
    const snapshot = await sourceWith().read();
    expect([...snapshot.values]).toEqual([
      [`${prefix}/caller-keys`, '{}'],
      [`${prefix}/chains/p`, 'a,b'],
      [`${prefix}/keys/openai`, 'sk-1'],
    ]);
    expect(reads()).toHaveLength(1);
    expect(reads()[0]?.body).toMatchObject({ Recursive: true, WithDecryption: true, MaxResults: 10 });
  });

  it('follows the pages, 10 parameters each', async () => {
    for (let i = 0; i < 21; i += 1) ssm.put(`${prefix}/chains/p${i}`, 'a');
    expect((await sourceWith().read()).values.size).toBe(21);
    expect(reads()).toHaveLength(3);
  });

  it.each([
    [0, 24_000],
    [0.5, 30_000],
    [0.75, 33_000],
  ])('trusts a snapshot for cacheMs with ±20 percent jitter (random %s → %s ms)', async (r, lifetime) => {
    const source = sourceWith(() => r);
    await source.read();
    clock.advance(lifetime - 1);
    await source.read();
    expect(reads()).toHaveLength(1);
    clock.advance(1);
    await source.read();
    expect(reads()).toHaveLength(2);
  });

  it('shares one read among concurrent callers', async () => {
    const source = sourceWith();
    await Promise.all([source.read(), source.read(), source.read()]);
    expect(reads()).toHaveLength(1);
  });

  it('serves the last good snapshot while SSM fails, retrying after 1 s, 2 s, 4 s … up to cacheMs', async () => {
    ssm.put(`${prefix}/chains/p`, 'a');
    const source = sourceWith(() => 0.5, 5_000);
    const first = await source.read();
    ssm.fail('GetParametersByPath', { type: 'ThrottlingException' }, 100);
    clock.advance(5_000);
    const pauses: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      expect(await source.read()).toBe(first);
      pauses.push(source.nextReadAt() - clock.now());
      clock.advance(source.nextReadAt() - clock.now());
    }
    expect(pauses).toEqual([1_000, 2_000, 4_000, 5_000, 5_000]);
    expect(warnings[0]).toMatchObject({
      message: 'SSM parameters unreadable; serving the last good snapshot',
      fields: { error: 'ThrottlingException', ageMs: 5_000 },
    });
  });

  it('throws when no read has ever succeeded, naming when it will try again', async () => {
    ssm.fail('GetParametersByPath', { type: 'AccessDeniedException' });
    const error = await sourceWith()
      .read()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ParameterSnapshotUnavailableError);
    expect((error as ParameterSnapshotUnavailableError).nextReadAt).toBe(clock.now() + 1_000);
  });

  it('kicks a read in the background only when one is due', async () => {
    const source = sourceWith();
    source.kick();
    await source.read();
    expect(reads()).toHaveLength(1);
    source.kick();
    expect(reads()).toHaveLength(1);
    expect(source.latest()?.readAt).toBe(clock.now());
  });
});

describe('chain overrides from the snapshot', () => {
  it('answers <prefix>/chains/<pipeline>, and undefined for a pipeline without one, with no call of their own', async () => {
    ssm.put(`${prefix}/chains/p`, 'b,c');
    const chains = createSsmChainParameters(sourceWith());
    expect(await chains.get('p')).toBe('b,c');
    expect(await chains.get('q')).toBeUndefined();
    expect(ssm.requests.filter((r) => String(r.body.Name ?? r.body.Path).startsWith(prefix))).toHaveLength(1);
  });

  it('sees an override cleared after the lifetime', async () => {
    ssm.put(`${prefix}/chains/p`, 'b');
    const chains = createSsmChainParameters(sourceWith());
    expect(await chains.get('p')).toBe('b');
    ssm.delete(`${prefix}/chains/p`);
    clock.advance(30_000);
    expect(await chains.get('p')).toBeUndefined();
  });
});

describe('jittered', () => {
  it.each([
    [0, 800],
    [0.5, 1_000],
    [0.75, 1_100],
  ])('spreads 1000 by ±20 percent (random %s → %s)', (r, expected) => {
    expect(jittered(1_000, 0.2, () => r)).toBe(expected);
  });
});

describe('parameter snapshot with retries (as the Lambda wires it)', () => {
  /** A sleep that moves the fake clock itself, so a retry pause passes at once. */
  const retrying = () =>
    createParameterSource({
      client,
      prefix,
      cacheMs: 30_000,
      log,
      clock,
      random: () => 0.5,
      readTimeoutMs: 3_000,
      sleep: async (ms) => clock.advance(ms),
    });
  const THROTTLED = { type: 'ThrottlingException', message: 'Rate exceeded' };

  it('reads again after a jittered pause when SSM throttles once, and serves that read', async () => {
    ssm.put(`${prefix}/chains/p`, 'a,b');
    ssm.fail('GetParametersByPath', THROTTLED, 1);
    const start = clock.now();
    expect((await retrying().read()).values.get(`${prefix}/chains/p`)).toBe('a,b');
    expect(reads()).toHaveLength(2);
    // Full jitter under the first cap (100 ms) with random 0.5.
    expect(clock.now() - start).toBe(50);
  });

  it('tries a snapshot read at most twice, then backs off as before', async () => {
    ssm.fail('GetParametersByPath', THROTTLED, 10);
    const source = retrying();
    await expect(source.read()).rejects.toBeInstanceOf(ParameterSnapshotUnavailableError);
    expect(reads()).toHaveLength(2);
    expect(source.nextReadAt() - clock.now()).toBe(1_000);
  });
});
