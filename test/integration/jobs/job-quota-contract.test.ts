import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredTicket } from '../../../lambda/core/admission/stored-ticket.js';
import type { JobRecord, JobRun } from '../../../lambda/core/jobs/job.js';
import type { JobStore } from '../../../lambda/core/jobs/job-ports.js';
import { type JobQuota, JobQuotaExceededError } from '../../../lambda/core/jobs/job-quota.js';
import { ensureJobTable } from '../../../lambda/jobs/aws/create-job-table.js';
import { takeQuotaSlot } from '../../../lambda/jobs/aws/dynamodb-job-quota.js';
import { createDynamoDbJobStore } from '../../../lambda/jobs/aws/dynamodb-job-store.js';
import { createMemoryJobStore } from '../../../lambda/jobs/memory/memory-job-store.js';
import { openJobsDb } from '../../../lambda/jobs/sqlite/open-jobs-db.js';
import { createSqliteJobStore } from '../../../lambda/jobs/sqlite/sqlite-job-store.js';
import { DYNALITE_ENV, type RunningDynalite, startDynalite } from '../../helpers/dynalite.js';
import { createFakeClock, type FakeClock } from '../../helpers/fake-clock.js';
import { tempJobsDb } from '../../helpers/serve-process.js';

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);
const LEASE_MS = 60_000;

let dynalite: RunningDynalite;
const clients: DynamoDBClient[] = [];
beforeAll(async () => {
  dynalite = await startDynalite();
});
afterAll(async () => {
  for (const c of clients) c.destroy();
  await dynalite.stop();
});

let tables = 0;
/** A fresh table, and a way to open more stores on it (more gateways). */
async function dynamoTable(clock: FakeClock) {
  const client = new DynamoDBClient({
    endpoint: dynalite.endpoint,
    region: DYNALITE_ENV.AWS_REGION,
    credentials: {
      accessKeyId: DYNALITE_ENV.AWS_ACCESS_KEY_ID,
      secretAccessKey: DYNALITE_ENV.AWS_SECRET_ACCESS_KEY,
    },
  });
  clients.push(client);
  const tableName = `quota-${process.pid}-${++tables}`;
  await ensureJobTable(client, tableName);
  const doc = DynamoDBDocumentClient.from(client);
  return { doc, tableName, open: () => createDynamoDbJobStore({ client: doc, tableName, clock }) };
}

const STORES: [string, (clock: FakeClock) => Promise<() => JobStore>][] = [
  ['memory', async (clock) => () => createMemoryJobStore({ clock })],
  [
    'SQLite',
    async (clock) => {
      // Every store opened is another connection to one file, as two `serve` processes would be.
      const path = tempJobsDb();
      return () => createSqliteJobStore({ db: openJobsDb(path), clock });
    },
  ],
  ['DynamoDB', async (clock) => (await dynamoTable(clock)).open],
];

const quota = (owner: string, max: number): JobQuota => ({
  owner,
  max,
  field: `admission.keys.${owner}.maxQueuedJobs`,
});

function job(jobId: string, owner: string, overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    jobId,
    pipeline: 'p',
    request: { model: 'p', messages: [{ role: 'user', content: 'hello' }] },
    status: 'queued',
    createdAt: T0,
    updatedAt: T0,
    runs: [],
    owner,
    keyLimits: true,
    expiresAt: T0 / 1000 + 86_400,
    ...overrides,
  };
}

const RUN: JobRun = { at: T0, reason: 'success', attempts: 1, route: 'a:200', model: 'a' };
const ANSWER = { model: 'a', content: 'hi', finishReason: 'stop' as const };

const TICKET: StoredTicket = {
  holds: [
    {
      limit: {
        scope: 'key',
        name: 'alice',
        kind: 'spend',
        cap: 500_000,
        field: 'admission.keys.alice.usdPerDay',
      },
      slot: { counter: 'key:alice:spend', bucket: 'day:2026-12-01', expiresAt: T0 + 86_400_000 },
      amount: 100_000,
      after: 100_000,
    },
  ],
  reserved: { tokens: 20, costNano: 100_000 },
};

describe.each(STORES)('%s job store: quotas per key', (_name, make) => {
  it('refuses the job past its owner quota, exactly at the quota, and still takes another owner’s', async () => {
    const store = (await make(createFakeClock(T0)))();
    for (const id of ['a1', 'a2', 'a3'])
      expect(await store.create(job(id, 'alice'), quota('alice', 3))).toBe(true);
    await expect(store.create(job('a4', 'alice'), quota('alice', 3))).rejects.toThrow(JobQuotaExceededError);
    expect(await store.get('a4')).toBeUndefined();
    expect(await store.create(job('b1', 'bob'), quota('bob', 3))).toBe(true);
  });

  it('frees a slot when a job succeeds or fails for good, not while it retries', async () => {
    const clock = createFakeClock(T0);
    const store = (await make(clock))();
    for (const id of ['a1', 'a2']) await store.create(job(id, 'alice'), quota('alice', 2));
    await store.claim('a1', T0, LEASE_MS);
    await store.fail('a1', { ...RUN, reason: 'exhausted' }, T0, undefined);
    await expect(store.create(job('a3', 'alice'), quota('alice', 2))).rejects.toThrow(JobQuotaExceededError);
    await store.claim('a1', T0, LEASE_MS);
    expect(await store.succeed('a1', ANSWER, RUN, T0)).toBe(true);
    expect(await store.create(job('a3', 'alice'), quota('alice', 2))).toBe(true);
    await store.claim('a2', T0, LEASE_MS);
    await store.fail('a2', { ...RUN, reason: 'stopped' }, T0, { code: 'invalid_request', message: 'no' });
    expect(await store.create(job('a4', 'alice'), quota('alice', 2))).toBe(true);
  });

  it('answers an idempotent repeat of a counted job with false, not a quota refusal', async () => {
    const store = (await make(createFakeClock(T0)))();
    expect(await store.create(job('a1', 'alice'), quota('alice', 1))).toBe(true);
    expect(await store.create(job('a1', 'alice'), quota('alice', 1))).toBe(false);
  });

  it('does not count a job that expired unfinished', async () => {
    const clock = createFakeClock(T0);
    const store = (await make(clock))();
    await store.create(job('a1', 'alice', { expiresAt: T0 / 1000 + 60 }), quota('alice', 1));
    clock.advance(61_000);
    const later = T0 + 61_000;
    expect(await store.create(job('a2', 'alice', { createdAt: later }), quota('alice', 1))).toBe(true);
  });

  it('hands the POST’s reservation to exactly one claim and keeps it out of the store after', async () => {
    const store = (await make(createFakeClock(T0)))();
    await store.create(job('a1', 'alice', { reservation: TICKET }));
    const first = await store.claim('a1', T0, 10);
    expect(first).toMatchObject({ kind: 'claimed', record: { status: 'running', leaseUntil: T0 + 10 } });
    expect(first.kind === 'claimed' && first.record.reservation).toEqual(TICKET);
    expect((await store.get('a1'))?.reservation).toBeUndefined();
    // The lease ran out: another worker takes the job, but not the reservation a second time.
    const second = await store.claim('a1', T0 + 20, 10);
    expect(second.kind).toBe('claimed');
    expect(second.kind === 'claimed' && second.record.reservation).toBeUndefined();
  });
});

describe('DynamoDB job quotas across gateways', () => {
  it('lets exactly the quota through when two gateways create jobs of one key at once', async () => {
    const table = await dynamoTable(createFakeClock(T0));
    const gateways = [table.open(), table.open()];
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => gateways[i % 2]?.create(job(`a${i}`, 'alice'), quota('alice', 3))),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(3);
    expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(7);
  });

  it('prunes a slot whose job was never stored, so the key is not locked out by it', async () => {
    const table = await dynamoTable(createFakeClock(T0));
    const store = table.open();
    await takeQuotaSlot(
      { client: table.doc, tableName: table.tableName },
      quota('alice', 1),
      'ghost',
      T0 / 1000 + 60,
      T0 / 1000,
    );
    expect(await store.create(job('a1', 'alice'), quota('alice', 1))).toBe(true);
    await expect(store.create(job('a2', 'alice'), quota('alice', 1))).rejects.toThrow(JobQuotaExceededError);
  });
});
