import { SwitchyardError } from '../../core/errors.js';
import type { JobRecord } from '../../core/jobs/job.js';
import type { ClaimResult, JobStore } from '../../core/jobs/job-ports.js';
import { type JobQuota, JobQuotaExceededError } from '../../core/jobs/job-quota.js';
import {
  claimTransition,
  deliveredTransition,
  enqueuedTransition,
  failTransition,
  isFinished,
  succeedTransition,
} from '../../core/jobs/job-transitions.js';
import type { Clock } from '../../core/time.js';
import { systemClock } from '../../wiring/system-time.js';

/** The memory store plus what tests and the local CLI read directly. */
export interface MemoryJobStore extends JobStore {
  /** Every live record, oldest first (copies). */
  all(): JobRecord[];
}

/** Options of {@link createMemoryJobStore}. */
export interface MemoryJobStoreOptions {
  /** Most records kept. Default 1000. */
  maxJobs?: number | undefined;
  /** Most bytes of records kept (their JSON size, roughly what they cost in memory). Default 64 MiB. */
  maxBytes?: number | undefined;
  /** Decides expiry (each record's `expiresAt`, set from `jobs.retentionDays`). Default the system clock. */
  clock?: Clock | undefined;
}

/** Default bounds: 1000 records, 64 MiB. */
export const MEMORY_JOB_STORE_DEFAULTS = { maxJobs: 1_000, maxBytes: 64 * 1024 * 1024 } as const;

/**
 * The memory store is full of unfinished jobs: nothing finished or expired is left to drop, and a
 * queued or running job is never dropped to make room. `POST /v1/jobs` answers 503.
 */
export class JobStoreFullError extends SwitchyardError {
  constructor(message: string) {
    super(message);
    this.name = 'JobStoreFullError';
  }
}

/**
 * Jobs in a Map, for `switchyard serve --jobs memory` and tests. Each method checks and writes in
 * one synchronous step with the shared transitions (`core/jobs/job-transitions.ts`), which is what
 * DynamoDB's conditional writes give the AWS store; records go in and out as copies, so a caller
 * can never change a stored record behind the store's back.
 *
 * Like the table's TTL, a record past its `expiresAt` is gone (readers never see it; it is swept
 * on the next write). The store is bounded by `maxJobs` and `maxBytes`: to make room for a new
 * job it drops expired records, then the oldest finished ones; if only unfinished jobs remain it
 * refuses the new one with {@link JobStoreFullError} rather than lose a queued or running job. A
 * quota passed to `create` bounds one owner's unfinished jobs below that, so that no one key fills it.
 */
export function createMemoryJobStore(options: MemoryJobStoreOptions = {}): MemoryJobStore {
  const maxJobs = options.maxJobs ?? MEMORY_JOB_STORE_DEFAULTS.maxJobs;
  const maxBytes = options.maxBytes ?? MEMORY_JOB_STORE_DEFAULTS.maxBytes;
  const clock = options.clock ?? systemClock;
  // Insertion order is creation order: the first finished record met is the oldest.
  const records = new Map<string, JobRecord>();
  const weights = new Map<string, number>();
  const publicIds = new Map<string, string>();
  let bytes = 0;
  const copy = (record: JobRecord): JobRecord => structuredClone(record);
  const expired = (record: JobRecord) => record.expiresAt <= Math.floor(clock.now() / 1000);

  const reweigh = (record: JobRecord): void => {
    const weight = JSON.stringify(record).length;
    bytes += weight - (weights.get(record.jobId) ?? 0);
    weights.set(record.jobId, weight);
  };
  const drop = (jobId: string): void => {
    const record = records.get(jobId);
    if (record?.publicId !== undefined) publicIds.delete(record.publicId);
    records.delete(jobId);
    bytes -= weights.get(jobId) ?? 0;
    weights.delete(jobId);
  };
  /** A live record, or undefined (an expired one is dropped on the way). */
  const live = (jobId: string): JobRecord | undefined => {
    const record = records.get(jobId);
    if (record && expired(record)) {
      drop(jobId);
      return undefined;
    }
    return record;
  };
  /** Stores what a transition decided; `false` when it decided nothing (its condition failed). */
  const put = (next: JobRecord | undefined): boolean => {
    if (!next) return false;
    records.set(next.jobId, next);
    reweigh(next);
    return true;
  };
  const full = (extra: number) => records.size + 1 > maxJobs || bytes + extra > maxBytes;
  const makeRoom = (extra: number): void => {
    for (const record of [...records.values()]) if (expired(record)) drop(record.jobId);
    for (const record of [...records.values()]) {
      if (!full(extra)) return;
      if (isFinished(record.status)) drop(record.jobId);
    }
    if (full(extra)) {
      throw new JobStoreFullError(
        `the local job store is full (${records.size} unfinished jobs, at most ${maxJobs} jobs / ${maxBytes} bytes); try again when some finish`,
      );
    }
  };

  // At most maxJobs records: counting them is cheaper than keeping a count right through every transition.
  const unfinishedOf = (owner: JobQuota['owner']): number => {
    let n = 0;
    for (const r of records.values()) if (r.owner === owner && !isFinished(r.status) && !expired(r)) n += 1;
    return n;
  };

  return {
    async create(record, quota) {
      if (live(record.jobId)) return false;
      if (quota && unfinishedOf(quota.owner) >= quota.max) throw new JobQuotaExceededError(quota);
      makeRoom(JSON.stringify(record).length);
      records.set(record.jobId, copy(record));
      reweigh(record);
      return true;
    },

    async get(jobId) {
      const record = live(jobId);
      return record && copy(record);
    },

    async getByPublicId(publicId) {
      const jobId = publicIds.get(publicId);
      const record = jobId === undefined ? undefined : live(jobId);
      return record?.publicId === publicId ? copy(record) : undefined;
    },

    async linkPublicId(publicId, jobId) {
      if (live(jobId)?.publicId === publicId) publicIds.set(publicId, jobId);
    },

    async markEnqueued(jobId, now) {
      put(enqueuedTransition(live(jobId), now));
    },

    async claim(jobId, now, leaseMs): Promise<ClaimResult> {
      const { result, write } = claimTransition(live(jobId), now, leaseMs);
      put(write);
      return result.kind === 'missing' || result.kind === 'busy'
        ? result
        : { ...result, record: copy(result.record) };
    },

    async succeed(jobId, result, run, now) {
      return put(succeedTransition(live(jobId), structuredClone(result), structuredClone(run), now));
    },

    async fail(jobId, run, now, terminal) {
      put(failTransition(live(jobId), structuredClone(run), now, terminal && { ...terminal }));
    },

    async markDelivered(jobId, now) {
      return put(deliveredTransition(live(jobId), now));
    },

    all: () => [...records.values()].filter((record) => !expired(record)).map(copy),
  };
}
