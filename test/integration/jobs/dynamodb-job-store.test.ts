import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureJobTable } from '../../../lambda/jobs/aws/create-job-table.js';
import { JOB_TABLE_KEYS } from '../../../lambda/jobs/aws/dynamodb-job-keys.js';
import { createDynamoDbJobStore } from '../../../lambda/jobs/aws/dynamodb-job-store.js';
import { MalformedJobError } from '../../../lambda/jobs/malformed-job-error.js';
import { DYNALITE_ENV, type RunningDynalite, startDynalite } from '../../helpers/dynalite.js';
import { createFakeClock, type FakeClock } from '../../helpers/fake-clock.js';
import { job, T0 } from './job-store-contract-harness.js';

let dynalite: RunningDynalite;
beforeAll(async () => {
  dynalite = await startDynalite();
});
afterAll(() => dynalite.stop());

let client: DynamoDBClient;
let doc: DynamoDBDocumentClient;
let tableName: string;
let clock: FakeClock;
let tables = 0;
beforeEach(async () => {
  client = new DynamoDBClient({
    endpoint: dynalite.endpoint,
    region: DYNALITE_ENV.AWS_REGION,
    credentials: {
      accessKeyId: DYNALITE_ENV.AWS_ACCESS_KEY_ID,
      secretAccessKey: DYNALITE_ENV.AWS_SECRET_ACCESS_KEY,
    },
  });
  // A plain document client, without `removeUndefinedValues`: the store must cope with optional
  // fields that are present but undefined.
  doc = DynamoDBDocumentClient.from(client);
  tableName = `jobs-${process.pid}-${++tables}`;
  await ensureJobTable(client, tableName);
  clock = createFakeClock(T0);
});
afterEach(() => client.destroy());

const open = () => createDynamoDbJobStore({ client: doc, tableName, clock });

async function rawItem(jobId: string) {
  const { Item } = await doc.send(
    new GetCommand({ TableName: tableName, Key: { jobId }, ConsistentRead: true }),
  );
  return Item;
}

// The lifecycle (create, claim, leases, outcomes, delivery, public ids) is the shared contract in
// job-store-contract.test.ts; here is what only the table shows.
describe('DynamoDB job store: the items', () => {
  it('stores no attribute for an optional field that is undefined', async () => {
    await open().create(job('a'));
    expect(Object.keys((await rawItem('a')) ?? {})).not.toContain('leaseUntil');
  });

  it('does not turn markEnqueued of a missing job into a stub item', async () => {
    await open().markEnqueued('ghost', T0);
    expect(await rawItem('ghost')).toBeUndefined();
  });

  it('keeps ignoring an expired item that dynalite never deletes', async () => {
    const store = open();
    await store.create(job('old', { expiresAt: T0 / 1000 + 60 }));
    clock.advance(61_000);
    expect(await store.get('old')).toBeUndefined();
    expect(await rawItem('old')).toBeDefined();
  });

  it('reports an item without the fields the transitions need instead of guessing', async () => {
    await doc.send(
      new PutCommand({ TableName: tableName, Item: { jobId: 'bad', status: 'weird', expiresAt: 9e9 } }),
    );
    await expect(open().get('bad')).rejects.toBeInstanceOf(MalformedJobError);
  });
});

describe('jobs table creation', () => {
  it('creates the table once and then finds it, with jobId as its only key', async () => {
    const name = `jobs-new-${process.pid}`;
    expect(await ensureJobTable(client, name)).toBe('created');
    expect(await ensureJobTable(client, name)).toBe('exists');
    await doc.send(new PutCommand({ TableName: name, Item: { [JOB_TABLE_KEYS.partitionKey]: 'x' } }));
    expect((await doc.send(new GetCommand({ TableName: name, Key: { jobId: 'x' } }))).Item).toEqual({
      jobId: 'x',
    });
  });
});
