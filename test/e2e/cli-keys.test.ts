import { SSMClient } from '@aws-sdk/client-ssm';
import { beforeEach, describe, expect, it } from 'vitest';
import { createParameterSource } from '../../lambda/aws/parameter-snapshot.js';
import { createSsmCallerKeys } from '../../lambda/aws/ssm-caller-keys.js';
import { parseConfig } from '../../lambda/config/switchyard-config.js';
import { silentLogger } from '../../lambda/core/logger.js';
import { createHttpApp } from '../../lambda/http/create-http-app.js';
import { createLocalGateway } from '../../lambda/wiring/create-local-gateway.js';
import { systemClock } from '../../lambda/wiring/system-time.js';
import { runCliCaptured, writeTempConfig } from '../helpers/cli-harness.js';
import { useOperatorAws } from '../helpers/operator-aws.js';
import { ABC_CONFIG } from '../helpers/test-config.js';

const PARAM = '/switchyard/caller-keys';
const KEY = /^key +(sy-[A-Za-z0-9_-]{43})$/m;
const aws = useOperatorAws(ABC_CONFIG);
beforeEach(() => aws.ssm.delete(PARAM));

const keys = (...args: string[]) => runCliCaptured(['keys', ...args, '--config', aws.config], aws.env);

/** The HTTP app as the API Lambda wires it: caller keys from SSM (no cache, so revocation shows at once). */
function apiWithSsmKeys() {
  const local = createLocalGateway({
    config: parseConfig(ABC_CONFIG),
    env: {},
    log: silentLogger,
    ledger: () => {},
  });
  const client = new SSMClient({
    endpoint: aws.ssm.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDLAMBDA', secretAccessKey: 'fake' },
  });
  const source = createParameterSource({
    client,
    prefix: '/switchyard',
    cacheMs: 0,
    log: silentLogger,
    clock: systemClock,
    random: Math.random,
  });
  const callerKeys = createSsmCallerKeys({
    source,
    log: silentLogger,
    clock: systemClock,
    maxStaleMs: 300_000,
  });
  const app = createHttpApp({
    gateway: local.gateway,
    catalog: local.catalog,
    log: silentLogger,
    callerKeys,
  });
  return (key: string) => app.request('/v1/models', { headers: { authorization: `Bearer ${key}` } });
}

describe('switchyard keys (SSM)', () => {
  it('issues a key into SSM that the API then accepts, and revokes it', async () => {
    const issued = await keys('issue', 'ci-bot', '--ssm');
    expect(issued.code).toBe(0);
    expect(issued.stderr).toContain('shown only this once');
    const key = KEY.exec(issued.stdout)?.[1] as string;
    expect(key).toBeDefined();
    expect(aws.ssm.versions(PARAM)[0]?.type).toBe('SecureString');
    expect(aws.ssm.value(PARAM)).not.toContain(key);

    const call = apiWithSsmKeys();
    expect((await call(key)).status).toBe(200);
    expect((await call(`sy-${'A'.repeat(43)}`)).status).toBe(401);

    const listed = await keys('list', '--ssm');
    expect(listed.stdout).toMatch(/^ci-bot +[0-9a-f]{8}$/m);
    expect(listed.stdout).not.toContain(key);

    const revoked = await keys('revoke', 'ci-bot', '--ssm');
    expect(revoked.code).toBe(0);
    expect(revoked.stderr).toContain('no caller keys left');
    expect((await call(key)).status).toBe(401);
  });

  it('refuses a duplicate name unless --replace, and keeps the other keys', async () => {
    await keys('issue', 'one', '--ssm');
    await keys('issue', 'two', '--ssm');
    const dup = await keys('issue', 'one', '--ssm');
    expect(dup.code).toBe(2);
    expect(dup.stdout).toBe('');
    expect(aws.ssm.versions(PARAM)).toHaveLength(2);
    const replaced = await keys('issue', 'one', '--ssm', '--replace');
    expect(replaced.code).toBe(0);
    expect(Object.keys(JSON.parse(aws.ssm.value(PARAM) as string))).toEqual(['one', 'two']);
  });

  it('answers status 2 when revoking a name that is not there, or without --ssm', async () => {
    const absent = await keys('revoke', 'ghost', '--ssm');
    expect(absent.code).toBe(2);
    expect(absent.stderr).toContain("no key 'ghost' in /switchyard/caller-keys");
    expect((await keys('revoke', 'ghost')).code).toBe(2);
    expect((await keys('issue', 'bad name')).code).toBe(2);
  });

  it('refuses to touch a caller-keys parameter it cannot read as keys (exit 1)', async () => {
    aws.ssm.put(PARAM, 'garbage', { type: 'SecureString' });
    const out = await keys('issue', 'x', '--ssm');
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('/switchyard/caller-keys: is not JSON');
    expect(aws.ssm.versions(PARAM)).toHaveLength(1);
  });
});

describe('switchyard keys (config file)', () => {
  it('prints the auth.keys snippet; the local gateway with that config accepts the key', async () => {
    const requestsBefore = aws.ssm.requests.length;
    const issued = await runCliCaptured(['keys', 'issue', 'laptop'], {});
    expect(issued.code).toBe(0);
    const key = KEY.exec(issued.stdout)?.[1] as string;
    const snippet = JSON.parse(issued.stdout.slice(issued.stdout.indexOf('{')));
    expect(Object.keys(snippet.auth.keys)).toEqual(['laptop']);
    expect(aws.ssm.requests.length).toBe(requestsBefore);

    const withAuth = { ...ABC_CONFIG, auth: snippet.auth };
    const { app } = createLocalGateway({
      config: parseConfig(withAuth),
      env: {},
      log: silentLogger,
      ledger: () => {},
    });
    expect((await app.request('/v1/models', { headers: { 'x-api-key': key } })).status).toBe(200);
    expect((await app.request('/v1/models', { headers: { 'x-api-key': 'sy-wrong' } })).status).toBe(401);

    const listed = await runCliCaptured(['keys', 'list', '--config', writeTempConfig(withAuth)], {});
    expect(listed.stdout).toMatch(/^laptop +[0-9a-f]{8}$/m);
  });
});
