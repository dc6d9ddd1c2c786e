import type { JobRecord } from '../../core/jobs/job.js';
import type { JobQueue, JobStore } from '../../core/jobs/job-ports.js';
import { type JobQuota, JobQuotaExceededError } from '../../core/jobs/job-quota.js';
import type { Logger } from '../../core/logger.js';
import type { Clock } from '../../core/time.js';
import { JobStoreFullError } from '../../jobs/memory/memory-job-store.js';

/** How taking a new job ended; `jobsAdmissionResponse` turns each into its HTTP answer. */
export type JobAdmission =
  /** Saved and queued now. */
  | { kind: 'accepted'; record: JobRecord }
  /** The same `Idempotency-Key` and request came before: the earlier job (queued if it was not). */
  | { kind: 'replayed'; record: JobRecord }
  /** The same `Idempotency-Key` came before with a different request. */
  | { kind: 'conflict' }
  /** The local job store is full; `message` says by what. */
  | { kind: 'full'; message: string }
  /** The caller key already has as many unfinished jobs as its quota allows. */
  | { kind: 'over_quota'; message: string; quota: JobQuota }
  /** The id was taken but the record is gone again (TTL between two calls). */
  | { kind: 'vanished' }
  /** Saved but not queued: the caller's retry (with the same key) repairs it. */
  | { kind: 'unqueued'; jobId: string };

/** What taking a job needs. */
export interface JobAdmissionDeps {
  store: JobStore;
  queue: JobQueue;
  clock: Clock;
  log: Logger;
}

/** JSON with sorted keys and no null or undefined members: equal requests compare equal after a store round trip. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v)
            .filter(([, x]) => x !== null && x !== undefined)
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

/** True when a stored job holds the same request as a new one (same pipeline, same body). */
function sameRequest(existing: JobRecord, incoming: JobRecord): boolean {
  return (
    existing.pipeline === incoming.pipeline && canonical(existing.request) === canonical(incoming.request)
  );
}

/** Puts a persisted record's message on the queue, unless an earlier request already did. */
async function enqueue(deps: JobAdmissionDeps, record: JobRecord): Promise<JobRecord> {
  if (record.enqueuedAt !== undefined) return record;
  await deps.queue.send({ jobId: record.jobId }, { delaySeconds: 0 });
  const now = deps.clock.now();
  await deps.store.markEnqueued(record.jobId, now);
  return { ...record, enqueuedAt: now, updatedAt: now };
}

/** A record whose id exists already: the earlier job of the same `Idempotency-Key`. */
async function replay(deps: JobAdmissionDeps, incoming: JobRecord): Promise<JobAdmission> {
  const existing = await deps.store.get(incoming.jobId);
  if (!existing) return { kind: 'vanished' };
  if (!sameRequest(existing, incoming)) return { kind: 'conflict' };
  return { kind: 'replayed', record: await enqueue(deps, existing) };
}

/**
 * Takes a new job: persists it first (under `quota`, when the caller key has one) (once the record exists, a lost enqueue is repaired by the
 * caller's retry), then queues it. A record whose id exists already is an idempotent replay.
 */
export async function admitJob(
  deps: JobAdmissionDeps,
  record: JobRecord,
  idempotent: boolean,
  quota?: JobQuota,
): Promise<JobAdmission> {
  let created: boolean;
  try {
    created = await deps.store.create(record, quota);
  } catch (error) {
    if (error instanceof JobQuotaExceededError) {
      deps.log.warn('job refused: the key is at its job quota', {
        pipeline: record.pipeline,
        field: quota?.field,
      });
      return { kind: 'over_quota', message: error.message, quota: error.quota };
    }
    if (!(error instanceof JobStoreFullError)) throw error;
    deps.log.warn('job refused: the local job store is full', { pipeline: record.pipeline });
    return { kind: 'full', message: error.message };
  }
  if (!created) return replay(deps, record);
  let queued: JobRecord;
  try {
    queued = await enqueue(deps, record);
  } catch (error) {
    const name = error instanceof Error ? error.name : String(error);
    deps.log.error('job saved but not enqueued', { jobId: record.jobId, error: name });
    return { kind: 'unqueued', jobId: record.jobId };
  }
  deps.log.info('job accepted', { jobId: record.jobId, pipeline: record.pipeline, idempotent });
  return { kind: 'accepted', record: queued };
}
