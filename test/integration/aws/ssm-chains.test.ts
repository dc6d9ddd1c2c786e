import { SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type ChainVersion,
  chainParameterName,
  createSsmChainStore,
  pickRollbackTarget,
  RollbackError,
  type SsmChainStore,
} from '../../../lambda/aws/ssm-chains.js';
import { type FakeSsm, startFakeSsm } from '../../helpers/fake-ssm.js';

let ssm: FakeSsm;
let store: SsmChainStore;
const NAME = '/sy-test/chains/comment-filter';

beforeAll(async () => {
  ssm = await startFakeSsm();
  const client = new SSMClient({
    endpoint: ssm.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDOPERATOR', secretAccessKey: 'fake' },
  });
  store = createSsmChainStore({ client, ssmPrefix: '/sy-test' });
});
afterAll(() => ssm.close());
beforeEach(() => ssm.delete(NAME));

describe('SSM chain store', () => {
  it('names the parameter <prefix>/chains/<pipeline> and refuses a name that is not one segment', () => {
    expect(store.parameterName('comment-filter')).toBe(NAME);
    expect(() => chainParameterName('/x', '../etc')).toThrow(/may contain only/);
  });

  it('reads undefined when the pipeline has no override', async () => {
    expect(await store.get('comment-filter')).toBeUndefined();
    expect(await store.current('comment-filter')).toBeUndefined();
    expect(await store.history('comment-filter')).toEqual([]);
  });

  it('writes String versions with a description, and reads the latest back', async () => {
    expect(await store.put('comment-filter', 'a,b')).toBe(1);
    expect(await store.put('comment-filter', 'c', 'incident 42')).toBe(2);
    expect(await store.get('comment-filter')).toBe('c');
    expect(await store.current('comment-filter')).toMatchObject({ version: 2, chain: 'c' });
    const put = ssm.requests.filter((r) => r.target === 'PutParameter').at(-1);
    expect(put?.body).toMatchObject({
      Name: NAME,
      Type: 'String',
      Overwrite: true,
      Description: 'incident 42',
    });
  });

  it('lists the history newest first, across pages, with who changed it', async () => {
    for (let i = 1; i <= 57; i += 1) ssm.put(NAME, `chain-${i}`, { by: `arn:aws:iam::1:user/u${i}` });
    const versions = await store.history('comment-filter');
    expect(versions).toHaveLength(57);
    expect(versions.map((v) => v.version).slice(0, 3)).toEqual([57, 56, 55]);
    expect(versions[0]).toMatchObject({ chain: 'chain-57', by: 'arn:aws:iam::1:user/u57' });
    expect(versions[0]?.modified).toBeInstanceOf(Date);
    expect(ssm.requests.filter((r) => r.target === 'GetParameterHistory').length).toBeGreaterThanOrEqual(2);
  });

  it('rolls back to the previous distinct chain as a new version', async () => {
    ssm.put(NAME, 'a,b');
    ssm.put(NAME, 'c');
    ssm.put(NAME, 'c');
    const result = await store.rollback('comment-filter');
    expect(result).toMatchObject({
      from: { version: 3, chain: 'c' },
      to: { version: 1, chain: 'a,b' },
      version: 4,
    });
    expect(ssm.value(NAME)).toBe('a,b');
    expect(ssm.versions(NAME).at(-1)?.description).toBe('rollback of comment-filter to version 1');
  });

  it('rolls back to a named version, and lets a check refuse the target before anything is written', async () => {
    ssm.put(NAME, 'a');
    ssm.put(NAME, 'b');
    ssm.put(NAME, 'c');
    await expect(
      store.rollback('comment-filter', {
        toVersion: 1,
        check: () => {
          throw new Error('refused');
        },
      }),
    ).rejects.toThrow('refused');
    expect(ssm.versions(NAME)).toHaveLength(3);
    expect((await store.rollback('comment-filter', { toVersion: 1 })).to.chain).toBe('a');
    expect(ssm.value(NAME)).toBe('a');
  });

  it('refuses a rollback with no override, nothing different, or an unknown version', async () => {
    await expect(store.rollback('comment-filter')).rejects.toBeInstanceOf(RollbackError);
    ssm.put(NAME, 'a');
    await expect(store.rollback('comment-filter')).rejects.toThrow(/no earlier, different chain/);
    await expect(store.rollback('comment-filter', { toVersion: 9 })).rejects.toThrow(/no version 9/);
    expect(ssm.versions(NAME)).toHaveLength(1);
  });

  it('passes SSM errors other than ParameterNotFound through', async () => {
    ssm.fail('GetParameter', { type: 'AccessDeniedException' });
    await expect(store.get('comment-filter')).rejects.toMatchObject({ name: 'AccessDeniedException' });
  });
});

describe('pickRollbackTarget', () => {
  const v = (version: number, chain: string): ChainVersion => ({
    version,
    chain,
    modified: undefined,
    by: undefined,
    description: undefined,
  });

  it.each([
    [[v(3, 'c'), v(2, 'b'), v(1, 'a')], undefined, 2],
    [[v(3, 'c'), v(2, 'c'), v(1, 'a')], undefined, 1],
    [[v(3, 'c'), v(2, 'b'), v(1, 'a')], 1, 1],
  ])('picks the right version from %j (to %s)', (history, to, expected) => {
    expect(pickRollbackTarget(history, to).version).toBe(expected);
  });

  it('refuses a version that holds the current chain', () => {
    expect(() => pickRollbackTarget([v(2, 'a'), v(1, 'a')], 1)).toThrow(/current chain already/);
  });
});
