import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBreakerDynamoDbClient, createDocumentClient } from '../../../lambda/aws/dynamodb-client.js';
import { WINDOW_BUCKETS } from '../../../lambda/core/breaker/breaker-policy.js';
import { ensureBreakerTable } from '../../../lambda/stores/create-breaker-table.js';
import { BREAKER_TABLE_KEYS } from '../../../lambda/stores/dynamodb-breaker-keys.js';
import { createDynamoDbBreakerStore } from '../../../lambda/stores/dynamodb-breaker-store.js';
import { SKEW_BUCKETS } from '../../../lambda/stores/dynamodb-breaker-update.js';
import { openBreakerTable, type RunningDynalite, startDynalite } from '../../helpers/dynalite.js';
import { createFakeClock, type FakeClock } from '../../helpers/fake-clock.js';
import { createRouterHarness, tiersOf } from '../../helpers/router-harness.js';
import { OK, RATE_LIMITED } from '../../helpers/scripted-model.js';
import { containerOn, POLICY } from './breaker-contract-harness.js';

let dynalite: RunningDynalite;
beforeAll(async () => {
  dynalite = await startDynalite();
});
afterAll(() => dynalite.stop());

type Table = Awaited<ReturnType<typeof openBreakerTable>>;
let table: Table;
let clock: FakeClock;
beforeEach(async () => {
  table = await openBreakerTable(dynalite);
  clock = createFakeClock();
});
afterEach(() => table.close());

const doc = () => createDocumentClient(table.client);
const count = (name: string) => table.counts.get(name) ?? 0;

async function rawItem(model: string, pipeline = 'p') {
  const { Item } = await doc().send(
    new GetCommand({ TableName: table.tableName, Key: { pipeline, model }, ConsistentRead: true }),
  );
  table.counts.set('GetItemCommand', count('GetItemCommand') - 1);
  return Item ?? {};
}

const bucketNames = (item: Record<string, unknown>) => Object.keys(item).filter((k) => k.startsWith('a_'));

describe('DynamoDB breaker store: cost', () => {
  it('selects with one Query and records an attempt with one UpdateItem (plus one per opening)', async () => {
    const router = createRouterHarness({
      models: { a: [RATE_LIMITED], b: [RATE_LIMITED], c: [OK] },
      tiers: tiersOf([['a', 'b'], ['c']]),
      store: table.store,
    });
    for (let i = 0; i < 10; i++) expect((await router.route()).ok).toBe(true);
    const attempts = router.attemptLines().length;
    expect(router.opened).toHaveLength(2);
    expect(count('QueryCommand')).toBe(attempts);
    expect(count('UpdateItemCommand')).toBe(attempts + router.opened.length);
    expect(count('GetItemCommand') + count('PutItemCommand')).toBe(0);
  });

  it('puts the TTL attribute, in epoch seconds, on every item, past everything the item holds', async () => {
    const c = containerOn(table.store, clock);
    await c.record('a', 'rate_limited', { retryAfterMs: 50_000 });
    await c.record('a', 'rate_limited');
    await c.record('b', 'ok');
    for (const model of ['a', 'b']) {
      const item = await rawItem(model);
      const expiresAt = item[BREAKER_TABLE_KEYS.ttlAttribute];
      expect(typeof expiresAt).toBe('number');
      expect(Number(expiresAt) * 1000).toBeGreaterThanOrEqual(clock.now() + POLICY.windowMs);
      expect(Number(expiresAt) * 1000).toBeGreaterThanOrEqual(Number(item.openUntil ?? 0));
      expect(Number(expiresAt) * 1000).toBeGreaterThanOrEqual(Number(item.coolUntil ?? 0));
      expect(Number(expiresAt)).toBeLessThan(clock.now() / 100); // seconds, not ms
    }
  });

  it('keeps an item bounded: hundreds of samples leave about one window of buckets', async () => {
    const c = containerOn(table.store, clock);
    for (let i = 0; i < 300; i++) {
      // Every fifth sample comes from a new container that has never seen the item.
      const writer = i % 5 === 0 ? containerOn(table.connect().store, clock) : c;
      await writer.record('a', i % 7 === 0 ? 'unavailable' : 'ok');
      clock.advance(i % 50 === 0 ? 4_000 : 450);
    }
    expect(bucketNames(await rawItem('a')).length).toBeLessThanOrEqual(WINDOW_BUCKETS + 2 * SKEW_BUCKETS);
    expect(count('GetItemCommand') + count('PutItemCommand')).toBe(0);
  });
});

describe('DynamoDB breaker store: expiry and the read-modify-write path', () => {
  it('ignores an expired item that TTL deletion has not removed yet', async () => {
    await doc().send(
      new PutCommand({
        TableName: table.tableName,
        Item: {
          pipeline: 'p',
          model: 'a',
          openUntil: clock.now() + 3_600_000,
          openReason: 'upstream_auth',
          consecutive429: 1,
          expiresAt: Math.floor(clock.now() / 1000) - 1,
        },
      }),
    );
    expect([...(await table.store.readPipeline('p', clock.now())).keys()]).toEqual([]);
    const router = createRouterHarness({
      models: { a: [OK], b: [OK] },
      tiers: tiersOf([['a'], ['b']]),
      store: table.store,
    });
    router.clock.set(clock.now());
    expect(await router.route()).toMatchObject({ ok: true, route: 'a:200' });
  });

  it('does not let a 429 streak outlive its item: after expiry the next sample starts afresh', async () => {
    const c = containerOn(table.store, clock);
    await c.record('a', 'rate_limited');
    const expiresAt = Number((await rawItem('a')).expiresAt);
    clock.set(expiresAt * 1000 + 1);
    await c.record('a', 'rate_limited');
    expect(await c.state('a')).toMatchObject({ open: false, streak: 1, attempts: 1 });
    expect([count('GetItemCommand'), count('PutItemCommand')]).toEqual([1, 1]);
    await c.record('a', 'ok');
    expect([count('GetItemCommand'), count('PutItemCommand')]).toEqual([1, 1]);
  });

  it('after a quiet spell longer than a window, drops the stale buckets once and keeps the opening', async () => {
    const policy = { ...POLICY, openMs: 10 * POLICY.windowMs };
    const c = containerOn(table.store, clock, policy);
    for (let i = 0; i < 5; i++) await c.record('a', 'unavailable');
    expect((await c.state('a')).open).toBe(true);
    clock.advance(POLICY.windowMs + 5_000);
    await c.record('a', 'ok');
    expect(await c.state('a')).toMatchObject({ open: true, attempts: 1, failures: 0 });
    expect(bucketNames(await rawItem('a'))).toHaveLength(1);
    expect([count('GetItemCommand'), count('PutItemCommand')]).toEqual([1, 1]);
  });

  it('keeps the later cooling end with one read-modify-write; a later end stays one write', async () => {
    const c = containerOn(table.store, clock);
    await c.record('a', 'unavailable', { retryAfterMs: 30_000 });
    await c.record('a', 'unavailable', { retryAfterMs: 40_000 });
    expect(count('PutItemCommand')).toBe(0);
    await c.record('a', 'unavailable', { retryAfterMs: 1_000 });
    expect(count('PutItemCommand')).toBe(1);
    expect((await c.state('a')).coolUntil).toBe(clock.now() + 40_000);
  });

  it('lets exactly one of 20 concurrent openings win', async () => {
    const stores = Array.from({ length: 20 }, () => table.connect().store);
    const results = await Promise.all(
      stores.map((s) => s.tryOpen('p', 'a', { now: clock.now(), reason: 'failure_rate', policy: POLICY })),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });
});

describe('DynamoDB breaker store: failures', () => {
  it('throws store errors (here: a missing table) instead of answering "closed"', async () => {
    const client = createBreakerDynamoDbClient({
      endpoint: dynalite.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
    });
    const store = createDynamoDbBreakerStore({
      client: createDocumentClient(client),
      tableName: 'no-such-table',
    });
    const notFound = { name: 'ResourceNotFoundException' };
    await expect(store.readPipeline('p', clock.now())).rejects.toMatchObject(notFound);
    await expect(store.record('p', 'a', { at: clock.now(), outcome: 'ok' }, POLICY)).rejects.toMatchObject(
      notFound,
    );
    await expect(
      store.tryOpen('p', 'a', { now: clock.now(), reason: 'failure_rate', policy: POLICY }),
    ).rejects.toMatchObject(notFound);

    // createBreakers reports each failure and routes on what its process knows.
    const router = createRouterHarness({
      models: { a: [RATE_LIMITED], b: [OK] },
      tiers: tiersOf([['a'], ['b']]),
      store,
    });
    expect(await router.route()).toMatchObject({ ok: true, route: 'a:429,b:200' });
    expect(await router.route()).toMatchObject({ ok: true, route: 'a:429,b:200' });
    expect(await router.route()).toMatchObject({ ok: true, route: 'b:200' });
    expect(router.opened).toEqual([expect.objectContaining({ model: 'a', reason: 'consecutive_429' })]);
    expect(new Set(router.storeErrors)).toEqual(new Set(['read', 'record', 'open']));
    client.destroy();
  });

  it('keeps serving when dynalite stops mid-run, and reports the failures', async () => {
    const own = await startDynalite();
    const ownTable = await openBreakerTable(own);
    const router = createRouterHarness({
      models: { a: [OK, RATE_LIMITED], b: [OK] },
      tiers: tiersOf([['a'], ['b']]),
      store: ownTable.store,
    });
    expect(await router.route()).toMatchObject({ ok: true, route: 'a:200' });
    expect(router.storeErrors).toEqual([]);
    await own.stop();
    for (let i = 0; i < 3; i++) expect((await router.route()).ok).toBe(true);
    expect(router.storeErrors).toContain('read');
    expect(router.storeErrors).toContain('record');
    expect(router.opened).toEqual([expect.objectContaining({ model: 'a' })]);
    ownTable.close();
  });

  it('creates the table once, even when two gateways start at the same moment', async () => {
    const slow = await startDynalite({ createTableMs: 300 });
    const connect = () =>
      createBreakerDynamoDbClient({
        endpoint: slow.endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
      });
    const clients = [connect(), connect()] as const;
    const outcomes = await Promise.all(clients.map((c) => ensureBreakerTable(c, 'shared', { pollMs: 20 })));
    expect(outcomes).toContain('created');
    expect(await ensureBreakerTable(clients[0], 'shared')).toBe('exists');
    const { Count } = await createDocumentClient(clients[1]).send(
      new QueryCommand({
        TableName: 'shared',
        KeyConditionExpression: '#pk = :p',
        ExpressionAttributeNames: { '#pk': 'pipeline' },
        ExpressionAttributeValues: { ':p': 'p' },
      }),
    );
    expect(Count).toBe(0);
    for (const c of clients) c.destroy();
    await slow.stop();
  });
});
