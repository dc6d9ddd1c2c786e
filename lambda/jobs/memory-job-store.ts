import type { JobRecord } from '../core/jobs/job.js';
import type { ClaimResult, JobStore } from '../core/jobs/job-ports.js';

/** The memory store plus what tests and the local CLI read directly. */
export interface MemoryJobStore extends JobStore {
  /** Every record, oldest first (copies). */
  all(): JobRecord[];
}

/**
 * Jobs in a Map, for `switchyard serve` and tests. Each method checks and writes in one
 * synchronous step, which is what DynamoDB's conditional writes give the AWS store; records go in
 * and out as copies, so a caller can never change a stored record behind the store's back.
 */
export function createMemoryJobStore(): MemoryJobStore {
  const records = new Map<string, JobRecord>();
  const copy = (record: JobRecord): JobRecord => structuredClone(record);

  return {
    async create(record) {
      if (records.has(record.jobId)) return false;
      records.set(record.jobId, copy(record));
      return true;
    },

    async get(jobId) {
      const record = records.get(jobId);
      return record && copy(record);
    },

    async markEnqueued(jobId, now) {
      const record = records.get(jobId);
      if (record) Object.assign(record, { enqueuedAt: now, updatedAt: now });
    },

    async claim(jobId, now, leaseMs): Promise<ClaimResult> {
      const record = records.get(jobId);
      if (!record) return { kind: 'missing' };
      if (record.status === 'succeeded' || record.status === 'failed') {
        return { kind: 'finished', record: copy(record) };
      }
      if (record.status === 'running' && (record.leaseUntil ?? 0) > now) return { kind: 'busy' };
      Object.assign(record, { status: 'running', leaseUntil: now + leaseMs, updatedAt: now });
      return { kind: 'claimed', record: copy(record) };
    },

    async succeed(jobId, result, run, now) {
      const record = records.get(jobId);
      if (record?.status !== 'running') return false;
      Object.assign(record, {
        status: 'succeeded',
        result: structuredClone(result),
        runs: [...record.runs, structuredClone(run)],
        leaseUntil: undefined,
        updatedAt: now,
      });
      return true;
    },

    async fail(jobId, run, now, terminal) {
      const record = records.get(jobId);
      if (record?.status !== 'running') return;
      Object.assign(record, {
        status: terminal ? 'failed' : 'retrying',
        error: terminal ? { ...terminal } : record.error,
        runs: [...record.runs, structuredClone(run)],
        leaseUntil: undefined,
        updatedAt: now,
      });
    },

    async markDelivered(jobId, now) {
      const record = records.get(jobId);
      if (!record?.deliver || record.deliver.deliveredAt !== undefined) return false;
      record.deliver = { ...record.deliver, deliveredAt: now };
      record.updatedAt = now;
      return true;
    },

    all: () => [...records.values()].map(copy),
  };
}
