import { SSMProvider } from '@aws-lambda-powertools/parameters/ssm';
import {
  DeleteParameterCommand,
  GetParameterCommand,
  GetParametersByPathCommand,
  PutParameterCommand,
  type SSMClient,
} from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSsm, fakeSsmClient, startFakeSsm } from '../../helpers/fake-ssm.js';

let ssm: FakeSsm;
let client: SSMClient;

beforeAll(async () => {
  ssm = await startFakeSsm();
  client = fakeSsmClient(ssm, 'AKIDTEST');
});
afterAll(() => ssm.close());

describe('fake SSM (with the real @aws-sdk/client-ssm)', () => {
  it('answers ParameterNotFound with the right error name', async () => {
    await expect(client.send(new GetParameterCommand({ Name: '/none' }))).rejects.toMatchObject({
      name: 'ParameterNotFound',
      $metadata: { httpStatusCode: 400 },
    });
  });

  it('refuses to overwrite without Overwrite (ParameterAlreadyExists) and versions every write', async () => {
    await client.send(new PutParameterCommand({ Name: '/f/x', Value: '1', Type: 'String' }));
    await expect(
      client.send(new PutParameterCommand({ Name: '/f/x', Value: '2', Type: 'String' })),
    ).rejects.toMatchObject({ name: 'ParameterAlreadyExists' });
    const out = await client.send(
      new PutParameterCommand({ Name: '/f/x', Value: '2', Type: 'String', Overwrite: true }),
    );
    expect(out.Version).toBe(2);
    expect(ssm.versions('/f/x').map((v) => [v.value, v.by])).toEqual([
      ['1', 'arn:aws:iam::000000000000:user/AKIDTEST'],
      ['2', 'arn:aws:iam::000000000000:user/AKIDTEST'],
    ]);
  });

  it('hides a SecureString value unless WithDecryption is set', async () => {
    ssm.put('/f/secret', 'clear', { type: 'SecureString' });
    const plain = await client.send(new GetParameterCommand({ Name: '/f/secret' }));
    expect(plain.Parameter?.Value).not.toBe('clear');
    const decrypted = await client.send(new GetParameterCommand({ Name: '/f/secret', WithDecryption: true }));
    expect(decrypted.Parameter).toMatchObject({ Value: 'clear', Type: 'SecureString', Version: 1 });
    expect(decrypted.Parameter?.LastModifiedDate).toBeInstanceOf(Date);
  });

  it('lists one level of a path, or all levels with Recursive', async () => {
    ssm.put('/p/a', 'a');
    ssm.put('/p/b', 'b');
    ssm.put('/p/deep/c', 'c');
    const flat = await client.send(new GetParametersByPathCommand({ Path: '/p' }));
    expect(flat.Parameters?.map((p) => p.Name)).toEqual(['/p/a', '/p/b']);
    const all = await client.send(new GetParametersByPathCommand({ Path: '/p', Recursive: true }));
    expect(all.Parameters?.map((p) => p.Name)).toEqual(['/p/a', '/p/b', '/p/deep/c']);
  });

  it('deletes a parameter', async () => {
    ssm.put('/f/gone', 'x');
    await client.send(new DeleteParameterCommand({ Name: '/f/gone' }));
    expect(ssm.value('/f/gone')).toBeUndefined();
    await expect(client.send(new DeleteParameterCommand({ Name: '/f/gone' }))).rejects.toMatchObject({
      name: 'ParameterNotFound',
    });
  });

  it('fails the next request of an operation on demand, then recovers', async () => {
    ssm.put('/f/flaky', 'ok');
    ssm.fail('GetParameter', { type: 'ThrottlingException', status: 400, message: 'Rate exceeded' });
    await expect(client.send(new GetParameterCommand({ Name: '/f/flaky' }))).rejects.toMatchObject({
      name: 'ThrottlingException',
    });
    expect((await client.send(new GetParameterCommand({ Name: '/f/flaky' }))).Parameter?.Value).toBe('ok');
  });
});

describe("fake SSM (with Powertools' SSMProvider)", () => {
  it('serves get, getMultiple and getParametersByName', async () => {
    const provider = new SSMProvider({ awsSdkV3Client: client });
    ssm.put('/pt/chains/one', 'a,b');
    ssm.put('/pt/chains/two', 'c');
    ssm.put('/pt/keys', '{"k":"v"}', { type: 'SecureString' });
    expect(await provider.get('/pt/chains/one')).toBe('a,b');
    expect(await provider.get('/pt/keys', { decrypt: true, transform: 'json' })).toEqual({ k: 'v' });
    expect(await provider.getMultiple('/pt/chains')).toEqual({ one: 'a,b', two: 'c' });
    const byName = await provider.getParametersByName(
      { '/pt/chains/one': {}, '/pt/chains/missing': {} },
      { throwOnError: false },
    );
    expect(byName).toMatchObject({ '/pt/chains/one': 'a,b', _errors: ['/pt/chains/missing'] });
    const targets = new Set(ssm.requests.map((r) => r.target));
    expect([...targets]).toEqual(
      expect.arrayContaining(['GetParameter', 'GetParametersByPath', 'GetParameters']),
    );
  });
});
