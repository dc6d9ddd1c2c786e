import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { JobRecord, JobResult, JobRun } from '../../../lambda/core/jobs/job.js';
import { ensureJobTable } from '../../../lambda/jobs/aws/create-job-table.js';
import { JOB_TABLE_KEYS } from '../../../lambda/jobs/aws/dynamodb-job-keys.js';
import { createDynamoDbJobStore, JobItemError } from '../../../lambda/jobs/aws/dynamodb-job-store.js';
import { DYNALITE_ENV, type RunningDynalite, startDynalite } from '../../helpers/dynalite.js';
import { createFakeClock, type FakeClock } from '../../helpers/fake-clock.js';

const T0 = Date.UTC(2026, 10, 29, 3, 0, 0);
const DAY_S = 86_400;
const LEASE_MS = 60_000;

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

function job(jobId: string, overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    jobId,
    pipeline: 'digest',
    request: {
      model: 'digest',
      messages: [{ role: 'user', content: 'Summarise the day.' }],
      max_tokens: 200,
    },
    status: 'queued',
    createdAt: T0,
    updatedAt: T0,
    runs: [],
    deliver: { url: 'http://127.0.0.1:9/hook', secretEnv: 'HOOK_SECRET', secretName: undefined },
    schedule: 'nightly',
    leaseUntil: undefined,
    expiresAt: T0 / 1000 + 7 * DAY_S,
    ...overrides,
  };
}

const run = (reason: JobRun['reason'], at = clock.now()): JobRun => ({
  at,
  reason,
  attempts: 2,
  route: 'gpt-mini:429,llama-or:200',
  model: reason === 'success' ? 'llama-or' : undefined,
  failureClass: reason === 'success' ? undefined : 'rate_limited',
});

const ANSWER: JobResult = {
  model: 'llama-or',
  content: 'All quiet.',
  finishReason: 'stop',
  usage: undefined,
};

async function rawItem(jobId: string) {
  const { Item } = await doc.send(
    new GetCommand({ TableName: tableName, Key: { jobId }, ConsistentRead: true }),
  );
  return Item;
}

describe('DynamoDB job store: create and read', () => {
  it('creates a job once; the second create of the same id answers false and changes nothing', async () => {
    const store = open();
    expect(await store.create(job('a'))).toBe(true);
    expect(await store.create(job('a', { pipeline: 'other' }))).toBe(false);
    const record = await store.get('a');
    expect(record).toMatchObject({ jobId: 'a', pipeline: 'digest', status: 'queued', runs: [] });
    expect(record?.request.messages[0]).toEqual({ role: 'user', content: 'Summarise the day.' });
    // Undefined optionals are not stored at all.
    expect(Object.keys((await rawItem('a')) ?? {})).not.toContain('leaseUntil');
  });

  it('answers undefined for an unknown id and marks an enqueued job with the time', async () => {
    const store = open();
    expect(await store.get('nope')).toBeUndefined();
    await store.create(job('a'));
    await store.markEnqueued('a', T0 + 5);
    expect(await store.get('a')).toMatchObject({ enqueuedAt: T0 + 5, updatedAt: T0 + 5 });
  });

  it('does not turn markEnqueued of a missing job into a stub item', async () => {
    await open().markEnqueued('ghost', T0);
    expect(await rawItem('ghost')).toBeUndefined();
  });

  it('ignores an item whose TTL has passed, and lets a new job take its id', async () => {
    const store = open();
    await store.create(job('old', { expiresAt: T0 / 1000 + 60 }));
    expect(await store.get('old')).toBeDefined();
    clock.advance(61_000);
    expect(await store.get('old')).toBeUndefined();
    // dynalite never deletes it: the item is still there, only ignored.
    expect(await rawItem('old')).toBeDefined();
    expect(await store.claim('old', clock.now(), LEASE_MS)).toEqual({ kind: 'missing' });
    expect(await store.markDelivered('old', clock.now())).toBe(false);
    const fresh = job('old', {
      createdAt: clock.now(),
      expiresAt: clock.now() / 1000 + DAY_S,
      pipeline: 'new',
    });
    expect(await store.create(fresh)).toBe(true);
    expect(await store.get('old')).toMatchObject({ pipeline: 'new', status: 'queued' });
  });

  it('finds a scheduled job by its linked public id only, until the link expires', async () => {
    const store = open();
    const id = 'nightly:acct-1:2026-11-29T03:00:00Z';
    const publicId = 'job_0123456789abcdef0123456789abcdef';
    const expiresAt = Math.floor(T0 / 1000) + DAY_S;
    await store.create(job(id, { publicId, expiresAt }));
    expect(await store.getByPublicId(publicId)).toBeUndefined();
    await store.linkPublicId(publicId, id, expiresAt);
    await store.linkPublicId(publicId, id, expiresAt);
    expect((await store.getByPublicId(publicId))?.jobId).toBe(id);
    // The internal id is not a public id, and a link the record does not claim exposes nothing.
    expect(await store.getByPublicId(id)).toBeUndefined();
    await store.linkPublicId('job_ffffffffffffffffffffffffffffffff', id, expiresAt);
    expect(await store.getByPublicId('job_ffffffffffffffffffffffffffffffff')).toBeUndefined();
    clock.advance(DAY_S * 1000);
    expect(await store.getByPublicId(publicId)).toBeUndefined();
  });

  it('reports an item without the fields the transitions need instead of guessing', async () => {
    await doc.send(
      new PutCommand({ TableName: tableName, Item: { jobId: 'bad', status: 'weird', expiresAt: 9e9 } }),
    );
    await expect(open().get('bad')).rejects.toBeInstanceOf(JobItemError);
  });
});

describe('DynamoDB job store: claim', () => {
  it('claims a queued job: running, with a lease of now + leaseMs', async () => {
    const store = open();
    await store.create(job('a'));
    const claim = await store.claim('a', T0 + 10, LEASE_MS);
    expect(claim.kind).toBe('claimed');
    expect(claim.kind === 'claimed' && claim.record).toMatchObject({
      status: 'running',
      leaseUntil: T0 + 10 + LEASE_MS,
      updatedAt: T0 + 10,
      pipeline: 'digest',
    });
  });

  it('answers busy while another worker holds the lease, and claimable once it expired', async () => {
    const first = open();
    const second = open();
    await first.create(job('a'));
    expect((await first.claim('a', T0, LEASE_MS)).kind).toBe('claimed');
    expect(await second.claim('a', T0 + LEASE_MS - 1, LEASE_MS)).toEqual({ kind: 'busy' });
    const retaken = await second.claim('a', T0 + LEASE_MS + 1, LEASE_MS);
    expect(retaken.kind).toBe('claimed');
    expect(retaken.kind === 'claimed' && retaken.record.leaseUntil).toBe(T0 + 2 * LEASE_MS + 1);
  });

  it('answers missing for an unknown job', async () => {
    expect(await open().claim('nope', T0, LEASE_MS)).toEqual({ kind: 'missing' });
  });

  it('lets exactly one of 20 concurrent claims win', async () => {
    const store = open();
    await store.create(job('hot'));
    const claims = await Promise.all(Array.from({ length: 20 }, () => open().claim('hot', T0, LEASE_MS)));
    const kinds = claims.map((c) => c.kind);
    expect(kinds.filter((k) => k === 'claimed')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'busy')).toHaveLength(19);
  });
});

describe('DynamoDB job store: outcomes', () => {
  it('succeeds a running job once; a later claim says finished and hands over the record', async () => {
    const store = open();
    await store.create(job('a'));
    await store.claim('a', T0, LEASE_MS);
    expect(await store.succeed('a', ANSWER, run('success', T0 + 500), T0 + 500)).toBe(true);
    expect(await store.succeed('a', ANSWER, run('success', T0 + 600), T0 + 600)).toBe(false);
    const claim = await store.claim('a', T0 + 700, LEASE_MS);
    expect(claim.kind).toBe('finished');
    const record = claim.kind === 'finished' ? claim.record : undefined;
    expect(record).toMatchObject({
      status: 'succeeded',
      result: { model: 'llama-or', content: 'All quiet.' },
    });
    expect(record?.runs).toEqual([
      { at: T0 + 500, reason: 'success', attempts: 2, route: 'gpt-mini:429,llama-or:200', model: 'llama-or' },
    ]);
    expect(record?.leaseUntil).toBeUndefined();
  });

  it('does not succeed a job that was never claimed', async () => {
    const store = open();
    await store.create(job('a'));
    expect(await store.succeed('a', ANSWER, run('success'), T0)).toBe(false);
    expect((await store.get('a'))?.status).toBe('queued');
  });

  it('records the delivery once: true for the first caller, false after', async () => {
    const store = open();
    await store.create(job('a'));
    await store.claim('a', T0, LEASE_MS);
    await store.succeed('a', ANSWER, run('success'), T0 + 1);
    const racing = await Promise.all([store.markDelivered('a', T0 + 2), open().markDelivered('a', T0 + 2)]);
    expect(racing.sort()).toEqual([false, true]);
    expect(await store.markDelivered('a', T0 + 3)).toBe(false);
    expect((await store.get('a'))?.deliver).toEqual({
      url: 'http://127.0.0.1:9/hook',
      secretEnv: 'HOOK_SECRET',
      deliveredAt: T0 + 2,
    });
  });

  it('records no delivery for a job that has no delivery target', async () => {
    const store = open();
    await store.create(job('a', { deliver: undefined }));
    expect(await store.markDelivered('a', T0)).toBe(false);
    expect((await store.get('a'))?.deliver).toBeUndefined();
  });

  it('fails a running job terminally: failed with the error, and a later claim says finished', async () => {
    const store = open();
    await store.create(job('a'));
    await store.claim('a', T0, LEASE_MS);
    await store.fail('a', run('stopped'), T0 + 1, { code: 'invalid_request', message: 'bad tool schema' });
    const claim = await store.claim('a', T0 + 2, LEASE_MS);
    expect(claim.kind).toBe('finished');
    expect(claim.kind === 'finished' && claim.record).toMatchObject({
      status: 'failed',
      error: { code: 'invalid_request', message: 'bad tool schema' },
      runs: [{ reason: 'stopped' }],
    });
  });

  it('puts a retryable failure back as retrying without a lease, claimable at once, runs kept', async () => {
    const store = open();
    await store.create(job('a'));
    await store.claim('a', T0, LEASE_MS);
    await store.fail('a', run('exhausted', T0 + 1), T0 + 1, undefined);
    const retrying = await store.get('a');
    expect(retrying).toMatchObject({ status: 'retrying', runs: [{ reason: 'exhausted' }] });
    expect(retrying?.leaseUntil).toBeUndefined();
    expect((await store.claim('a', T0 + 2, LEASE_MS)).kind).toBe('claimed');
    await store.succeed('a', ANSWER, run('success', T0 + 3), T0 + 3);
    expect((await store.get('a'))?.runs.map((r) => r.reason)).toEqual(['exhausted', 'success']);
  });

  it('leaves a job that another worker already finished as it is when a late fail arrives', async () => {
    const store = open();
    await store.create(job('a'));
    await store.claim('a', T0, LEASE_MS);
    await store.succeed('a', ANSWER, run('success'), T0 + 1);
    await store.fail('a', run('exhausted'), T0 + 2, undefined);
    expect(await store.get('a')).toMatchObject({ status: 'succeeded', runs: [{ reason: 'success' }] });
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
