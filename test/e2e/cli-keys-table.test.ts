import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDynamoDbCallerKeys } from '../../lambda/aws/dynamodb-caller-keys.js';
import { parseConfig } from '../../lambda/config/switchyard-config.js';
import { silentLogger } from '../../lambda/core/logger.js';
import { createHttpApp } from '../../lambda/http/create-http-app.js';
import { createLocalGateway } from '../../lambda/wiring/create-local-gateway.js';
import { systemClock, systemSleep } from '../../lambda/wiring/system-time.js';
import { dynaliteDocuments, seedCallerKeyTable } from '../helpers/caller-key-table.js';
import { runCliCaptured } from '../helpers/cli-harness.js';
import { type RunningDynalite, startDynalite } from '../helpers/dynalite.js';
import { useOperatorAws } from '../helpers/operator-aws.js';
import { ABC_CONFIG } from '../helpers/test-config.js';

const PARAM = '/switchyard/caller-keys';
const KEY = /^key +(sy-[A-Za-z0-9_-]{43})$/m;
const aws = useOperatorAws(ABC_CONFIG);
let dynalite: RunningDynalite;
let db: ReturnType<typeof dynaliteDocuments>;
let table: string;
let n = 0;

beforeAll(async () => {
  dynalite = await startDynalite();
  db = dynaliteDocuments(dynalite.endpoint);
});
afterAll(async () => {
  db.destroy();
  await dynalite.stop();
});
beforeEach(async () => {
  n += 1;
  table = `cli-caller-keys-${n}`;
  aws.ssm.delete(PARAM);
  await seedCallerKeyTable(dynalite.endpoint, table, {}, { authoritative: false });
});

const env = () => ({ ...aws.env, AWS_ENDPOINT_URL_DYNAMODB: dynalite.endpoint });
const keys = (...args: string[]) => runCliCaptured(['keys', ...args, '--config', aws.config], env());
const keyOf = (stdout: string) => KEY.exec(stdout)?.[1] as string;

/** The HTTP app as the API Lambda wires it with SWITCHYARD_KEYS_TABLE; caches of 1 ms. */
function apiWithTableKeys() {
  const local = createLocalGateway({
    config: parseConfig(ABC_CONFIG),
    env: {},
    log: silentLogger,
    ledger: () => {},
  });
  const callerKeys = createDynamoDbCallerKeys({
    client: db.documents,
    tableName: table,
    hitMs: 1,
    missMs: 1,
    maxStaleMs: 300_000,
    readBudgetMs: 1_000,
    clock: systemClock,
    random: Math.random,
    sleep: systemSleep,
    log: silentLogger,
  });
  const app = createHttpApp({
    gateway: local.gateway,
    catalog: local.catalog,
    log: silentLogger,
    callerKeys,
  });
  return async (key: string) => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    return (await app.request('/v1/models', { headers: { authorization: `Bearer ${key}` } })).status;
  };
}

describe('switchyard keys migrate', () => {
  it('prints what it would move on a dry run, never a key, and writes nothing', async () => {
    const a = keyOf((await keys('issue', 'app', '--ssm')).stdout);
    const b = keyOf((await keys('issue', 'ci-bot', '--ssm')).stdout);
    const dry = await keys('migrate', '--table', table);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^app +[0-9a-f]{8} +copy$/m);
    expect(dry.stdout).toMatch(/^ci-bot +[0-9a-f]{8} +copy$/m);
    expect(dry.stdout).toContain('dry run: nothing written. 2 to copy, 0 already there, 0 in conflict');
    for (const key of [a, b]) expect(dry.stdout + dry.stderr).not.toContain(key);
    expect((await keys('list', '--table', table)).stdout).toContain(`no caller keys in table ${table}`);
  });

  it('moves the keys with --apply: the API accepts them from the table alone, and a second run changes nothing', async () => {
    const a = keyOf((await keys('issue', 'app', '--ssm')).stdout);
    const applied = await keys('migrate', '--table', table, '--apply');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(/^app +[0-9a-f]{8} +copied$/m);
    expect(applied.stdout).toContain('The table now decides alone (meta item written)');
    expect(applied.stdout).toContain(`delete it when you like: aws ssm delete-parameter --name ${PARAM}`);
    expect(applied.stdout).not.toContain(a);
    aws.ssm.delete(PARAM);
    expect(await apiWithTableKeys()(a)).toBe(200);

    const again = await keys('migrate', '--table', table, '--apply');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('from /switchyard/caller-keys (0 keys)');
    expect(again.stdout).toContain('The table already decided alone');
  });

  it('leaves a key that is already there alone and reports a name held with another key as a conflict (exit 1)', async () => {
    await keys('issue', 'app', '--ssm');
    await keys('issue', 'other', '--ssm');
    await keys('migrate', '--table', table, '--apply');
    await keys('issue', 'other', '--ssm', '--replace');
    await keys('issue', 'late', '--ssm');
    await keys('revoke', 'other', '--table', table);
    await keys('add', 'other', '--table', table);
    const out = await keys('migrate', '--table', table, '--apply');
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/^app +[0-9a-f]{8} +already there$/m);
    expect(out.stdout).toMatch(/^late +[0-9a-f]{8} +copied$/m);
    expect(out.stdout).toMatch(/^other +[0-9a-f]{8} +conflict$/m);
    expect(out.stdout).toContain('1 not moved: the table holds another key under that name');
  });

  it('asks for the table when none is named', async () => {
    const out = await runCliCaptured(['keys', 'migrate', '--config', aws.config], aws.env);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('pass --table <CallerKeysTableName output> or set SWITCHYARD_KEYS_TABLE');
  });
});

describe('switchyard keys add / list / revoke on the caller-keys table', () => {
  it('adds a key the API accepts at once, lists it without the key, and revokes it', async () => {
    const added = await runCliCaptured(['keys', 'add', 'web', '--config', aws.config], {
      ...env(),
      SWITCHYARD_KEYS_TABLE: table,
    });
    expect(added.code).toBe(0);
    expect(added.stderr).toContain('shown only this once');
    expect(added.stdout).toContain(`added 'web' to table ${table}; the API accepts it at once`);
    const key = keyOf(added.stdout);
    const call = apiWithTableKeys();
    expect(await call(key)).toBe(200);
    expect(await call(`sy-${'A'.repeat(43)}`)).toBe(401);

    const listed = await keys('list', '--table', table);
    expect(listed.stdout).toMatch(/^web +[0-9a-f]{8} +\d{4}-\d\d-\d\dT/m);
    expect(listed.stdout).not.toContain(key);

    const revoked = await keys('revoke', 'web', '--table', table);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain("revoked 'web'");
    expect(revoked.stdout).not.toContain(key);
    expect(await call(key)).toBe(401);
  });

  it('makes the table decide alone on the first add when SSM holds no key, and warns while it still does', async () => {
    await keys('issue', 'legacy', '--ssm');
    const first = await keys('add', 'one', '--table', table);
    expect(first.stderr).toContain(
      "1 caller key(s) are still only in /switchyard/caller-keys; run 'switchyard keys migrate --apply'",
    );
    aws.ssm.delete(PARAM);
    const second = await keys('add', 'two', '--table', table);
    expect(second.stderr).not.toContain('still only in');
    expect(second.code).toBe(0);
  });

  it('refuses a name that exists unless --replace, and a revoke of a name that is not there (exit 2)', async () => {
    await keys('add', 'one', '--table', table);
    expect((await keys('add', 'one', '--table', table)).code).toBe(2);
    expect((await keys('add', 'one', '--table', table, '--replace')).code).toBe(0);
    const absent = await keys('revoke', 'ghost', '--table', table);
    expect(absent.code).toBe(2);
    expect(absent.stderr).toContain(`no key 'ghost' in table ${table} (keys: one)`);
    expect((await keys('list', '--table', table, '--ssm')).code).toBe(2);
    expect((await keys('add', 'x', '--table', table, '--apply')).code).toBe(2);
  });
});

describe('switchyard doctor --keys-table', () => {
  const doctor = (...args: string[]) => runCliCaptured(['doctor', ...args, '--config', aws.config], env());
  const callerLine = (stdout: string) => stdout.split('\n').find((l) => l.includes('caller keys:')) ?? '';

  it('says to add a key while the table holds none', async () => {
    const out = await doctor('--keys-table', table);
    expect(callerLine(out.stdout)).toBe(
      `FIX   caller keys: table ${table} holds no key, so the API refuses every caller → switchyard keys add '<name>' --table ${table} --config ${aws.config}`.replace(
        "'<name>'",
        '<name>',
      ),
    );
    expect(out.code).toBe(1);
  });

  it('says to migrate while keys are only in the SSM parameter, and counts the table once they are moved', async () => {
    const key = keyOf((await keys('issue', 'app', '--ssm')).stdout);
    const before = await doctor('--keys-table', table);
    expect(callerLine(before.stdout)).toContain(
      `FIX   caller keys: 1 key(s) only in ${PARAM}: the API still accepts them, but reads SSM for them`,
    );
    await keys('migrate', '--table', table, '--apply');
    const after = await runCliCaptured(['doctor', '--config', aws.config], {
      ...env(),
      SWITCHYARD_KEYS_TABLE: table,
    });
    expect(callerLine(after.stdout)).toBe(`ok    caller keys: 1 in table ${table}`);
    expect(after.stdout).not.toContain(key);
  });
});
