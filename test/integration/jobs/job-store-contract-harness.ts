import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { JobRecord, JobResult, JobRun } from '../../../lambda/core/jobs/job.js';
import type { JobStore } from '../../../lambda/core/jobs/job-ports.js';
import { ensureJobTable } from '../../../lambda/jobs/aws/create-job-table.js';
import { createDynamoDbJobStore } from '../../../lambda/jobs/aws/dynamodb-job-store.js';
import { createMemoryJobStore } from '../../../lambda/jobs/memory/memory-job-store.js';
import { openJobsDb } from '../../../lambda/jobs/sqlite/open-jobs-db.js';
import { createSqliteJobStore } from '../../../lambda/jobs/sqlite/sqlite-job-store.js';
import { DYNALITE_ENV, type RunningDynalite } from '../../helpers/dynalite.js';
import type { FakeClock } from '../../helpers/fake-clock.js';
import { tempJobsDb } from '../../helpers/serve-process.js';

/** A fresh, empty job store, and more handles on the same jobs (other workers, other processes). */
export interface JobStoreFixture {
  store: JobStore;
  /** Another handle on the same jobs: DynamoDB a new client, SQLite a new connection to the file. */
  connect(): JobStore;
  close(): void;
}

let tables = 0;

/** The stores the job contract runs against, by name. `dynalite` is read when a fixture is opened. */
export function jobStoreFixtures(dynalite: () => RunningDynalite) {
  return [
    {
      name: 'memory',
      open: async (clock: FakeClock): Promise<JobStoreFixture> => {
        const store = createMemoryJobStore({ clock });
        return { store, connect: () => store, close() {} };
      },
    },
    {
      name: 'sqlite',
      open: async (clock: FakeClock): Promise<JobStoreFixture> => {
        const path = tempJobsDb();
        const dbs = [openJobsDb(path)];
        const connect = () => {
          const db = openJobsDb(path);
          dbs.push(db);
          return createSqliteJobStore({ db, clock });
        };
        return {
          store: createSqliteJobStore({ db: dbs[0] as (typeof dbs)[0], clock }),
          connect,
          close: () => {
            for (const db of dbs) db.close();
          },
        };
      },
    },
    {
      name: 'dynamodb',
      open: async (clock: FakeClock): Promise<JobStoreFixture> => {
        const clients: DynamoDBClient[] = [];
        const tableName = `contract-jobs-${process.pid}-${++tables}`;
        const connect = () => {
          const client = new DynamoDBClient({
            endpoint: dynalite().endpoint,
            region: DYNALITE_ENV.AWS_REGION,
            credentials: {
              accessKeyId: DYNALITE_ENV.AWS_ACCESS_KEY_ID,
              secretAccessKey: DYNALITE_ENV.AWS_SECRET_ACCESS_KEY,
            },
          });
          clients.push(client);
          // A plain document client, without `removeUndefinedValues`: the store must cope with
          // optional fields that are present but undefined.
          return createDynamoDbJobStore({ client: DynamoDBDocumentClient.from(client), tableName, clock });
        };
        const store = connect();
        await ensureJobTable(clients[0] as DynamoDBClient, tableName);
        return {
          store,
          connect,
          close: () => {
            for (const client of clients) client.destroy();
          },
        };
      },
    },
  ];
}

/** 2026-11-29T03:00:00Z, ms. */
export const T0 = Date.UTC(2026, 10, 29, 3, 0, 0);
export const DAY_S = 86_400;
export const LEASE_MS = 60_000;

/** A queued scheduled job with a webhook, expiring in 7 days. */
export function job(jobId: string, overrides: Partial<JobRecord> = {}): JobRecord {
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

/** One run ending at `at`. */
export const run = (reason: JobRun['reason'], at: number): JobRun => ({
  at,
  reason,
  attempts: 2,
  route: 'gpt-mini:429,llama-or:200',
  model: reason === 'success' ? 'llama-or' : undefined,
  failureClass: reason === 'success' ? undefined : 'rate_limited',
});

export const ANSWER: JobResult = {
  model: 'llama-or',
  content: 'All quiet.',
  finishReason: 'stop',
  usage: undefined,
};
