import * as z from 'zod';
import { JOB_STATUSES, type JobRecord } from '../../core/jobs/job.js';
import type { JobStore } from '../../core/jobs/job-ports.js';
import { JobQuotaExceededError } from '../../core/jobs/job-quota.js';
import {
  claimTransition,
  deliveredTransition,
  enqueuedTransition,
  failTransition,
  succeedTransition,
} from '../../core/jobs/job-transitions.js';
import type { Clock } from '../../core/time.js';
import { MalformedJobError } from '../malformed-job-error.js';
import { JobStoreFullError } from '../memory/memory-job-store.js';
import { immediate, type SqliteDatabase } from './open-jobs-db.js';

/** Options of {@link createSqliteJobStore}. */
export interface SqliteJobStoreOptions {
  /** An open jobs database ({@link openJobsDb}); the store never closes it. */
  db: SqliteDatabase;
  /** Decides expiry for `get`/`getByPublicId` (the other calls are given `now`). */
  clock: Clock;
  /** Most records kept. Default 100000. */
  maxJobs?: number | undefined;
  /** Most bytes of records kept (their JSON size). Default 1 GiB. */
  maxBytes?: number | undefined;
}

/** Default bounds of the file store: 100000 records, 1 GiB. */
export const SQLITE_JOB_STORE_DEFAULTS = { maxJobs: 100_000, maxBytes: 1024 * 1024 * 1024 } as const;

// Read at the edge: only what the store's own decisions depend on is checked; the rest of the
// row is what `create` wrote from a JobRecord.
const recordShape = z.looseObject({
  jobId: z.string().min(1),
  status: z.enum(JOB_STATUSES),
  runs: z.array(z.unknown()),
  expiresAt: z.number(),
});

const epochSeconds = (now: number) => Math.floor(now / 1000);

function parseRow(jobId: string, text: unknown): JobRecord {
  let json: unknown;
  try {
    json = JSON.parse(String(text));
  } catch {
    throw new MalformedJobError(jobId, 'record is not JSON', 'row');
  }
  const parsed = recordShape.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new MalformedJobError(jobId, `${issue?.path.join('.')}: ${issue?.message}`, 'row');
  }
  return parsed.data as unknown as JobRecord;
}

/**
 * Jobs in a SQLite file (`node:sqlite`), for `switchyard serve`: one row per job holding the
 * record as JSON, plus the columns the store selects on. Every change is a read and a write in
 * one `BEGIN IMMEDIATE` transaction, deciding with the same pure transitions
 * (`core/jobs/job-transitions.ts`) whose conditions the DynamoDB store writes as expressions, so
 * two processes on one file, or a replay racing a retry, can never both run or both deliver a job.
 * A commit is in the WAL before the call returns (`synchronous=NORMAL`): a job acknowledged is a
 * job that survives SIGKILL. Like the table's TTL, a record past its `expiresAt` is absent for
 * every reader and swept on the next create; the bounds work as the memory store's do (expired,
 * then the oldest finished records make room; unfinished ones are never dropped: `JobStoreFullError`).
 */
export function createSqliteJobStore(options: SqliteJobStoreOptions): JobStore {
  const { db, clock } = options;
  const maxJobs = options.maxJobs ?? SQLITE_JOB_STORE_DEFAULTS.maxJobs;
  const maxBytes = options.maxBytes ?? SQLITE_JOB_STORE_DEFAULTS.maxBytes;
  const select = db.prepare('SELECT record FROM jobs WHERE job_id = ? AND expires_at > ?');
  const insert = db.prepare(
    'INSERT OR REPLACE INTO jobs (job_id, status, created_at, expires_at, bytes, record) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const update = db.prepare(
    'UPDATE jobs SET status = ?, expires_at = ?, bytes = ?, record = ? WHERE job_id = ?',
  );
  const sweep = db.prepare('DELETE FROM jobs WHERE expires_at <= ?');
  const sweepLinks = db.prepare('DELETE FROM job_links WHERE expires_at <= ?');
  const totals = db.prepare('SELECT count(*) AS n, total(bytes) AS bytes FROM jobs');
  const oldestFinished = db.prepare(
    "SELECT job_id, bytes FROM jobs WHERE status IN ('succeeded', 'failed') ORDER BY created_at, job_id LIMIT 100",
  );
  const remove = db.prepare('DELETE FROM jobs WHERE job_id = ?');
  // The expression is the index's (jobs_by_owner), so the count reads the index alone.
  const unfinishedOf = db.prepare(
    "SELECT count(*) AS n FROM jobs WHERE json_extract(record, '$.owner') = ? AND status NOT IN ('succeeded', 'failed') AND expires_at > ?",
  );
  const link = db.prepare(
    'INSERT OR REPLACE INTO job_links (public_id, job_id, expires_at) VALUES (?, ?, ?)',
  );
  const linked = db.prepare('SELECT job_id FROM job_links WHERE public_id = ? AND expires_at > ?');

  const read = (jobId: string, now: number): JobRecord | undefined => {
    const row = select.get(jobId, epochSeconds(now));
    return row ? parseRow(jobId, row.record) : undefined;
  };
  const write = (record: JobRecord): void => {
    const text = JSON.stringify(record);
    update.run(record.status, record.expiresAt, text.length, text, record.jobId);
  };
  /** Read, decide, write: one transaction. */
  const change = (jobId: string, now: number, next: (r: JobRecord | undefined) => JobRecord | undefined) =>
    immediate(db, () => {
      const record = next(read(jobId, now));
      if (record) write(record);
      return record !== undefined;
    });

  const makeRoom = (extra: number): void => {
    let { n, bytes } = totals.get() as { n: number; bytes: number };
    const full = () => n + 1 > maxJobs || bytes + extra > maxBytes;
    while (full()) {
      const victims = oldestFinished.all() as { job_id: string; bytes: number }[];
      if (victims.length === 0) break;
      for (const victim of victims) {
        if (!full()) return;
        remove.run(victim.job_id);
        n -= 1;
        bytes -= victim.bytes;
      }
    }
    if (full()) {
      throw new JobStoreFullError(
        `the local job store is full (${n} jobs, at most ${maxJobs} jobs / ${maxBytes} bytes); try again when some finish`,
      );
    }
  };

  return {
    async create(record, quota) {
      const text = JSON.stringify(record);
      return immediate(db, () => {
        const nowSec = epochSeconds(record.createdAt);
        // An expired record is the deleted record it soon would be: a new job may take its id.
        sweep.run(nowSec);
        sweepLinks.run(nowSec);
        if (select.get(record.jobId, nowSec)) return false;
        if (quota && Number((unfinishedOf.get(quota.owner, nowSec) as { n: number }).n) >= quota.max) {
          throw new JobQuotaExceededError(quota);
        }
        makeRoom(text.length);
        insert.run(record.jobId, record.status, record.createdAt, record.expiresAt, text.length, text);
        return true;
      });
    },

    async get(jobId) {
      return read(jobId, clock.now());
    },

    async getByPublicId(publicId) {
      const now = clock.now();
      const row = linked.get(publicId, epochSeconds(now));
      const record = row ? read(String(row.job_id), now) : undefined;
      // The record must claim the id back: a link alone never exposes a job.
      return record?.publicId === publicId ? record : undefined;
    },

    async linkPublicId(publicId, jobId, expiresAt) {
      link.run(publicId, jobId, expiresAt);
    },

    async markEnqueued(jobId, now) {
      change(jobId, now, (record) => enqueuedTransition(record, now));
    },

    async claim(jobId, now, leaseMs) {
      return immediate(db, () => {
        const { result, write: next } = claimTransition(read(jobId, now), now, leaseMs);
        if (next) write(next);
        return result;
      });
    },

    async succeed(jobId, result, run, now) {
      return change(jobId, now, (record) => succeedTransition(record, result, run, now));
    },

    async fail(jobId, run, now, terminal) {
      change(jobId, now, (record) => failTransition(record, run, now, terminal));
    },

    async markDelivered(jobId, now) {
      return change(jobId, now, (record) => deliveredTransition(record, now));
    },
  };
}
