import type { JobRecord, JobResult, JobRun, JobStatus } from './job.js';
import type { ClaimResult } from './job-ports.js';

/**
 * The job state machine as pure functions over a stored record: each answers the record to write,
 * or undefined when its condition does not hold (the store then writes nothing). A store that can
 * read and write one record in one atomic step (a SQLite transaction) needs nothing else; the
 * conditions are the ones the DynamoDB store writes as condition expressions.
 */

const FINISHED: ReadonlySet<JobStatus> = new Set(['succeeded', 'failed']);

/** Whether a job is done for good (`succeeded` or `failed`). */
export const isFinished = (status: JobStatus): boolean => FINISHED.has(status);

/**
 * Taking a job for a run: `queued`/`retrying`, or `running` whose lease ended before `now`
 * (its worker died or hung), becomes `running` with a lease until `now + leaseMs` (ms). A lease
 * ending exactly at `now` still holds, as in the DynamoDB condition `leaseUntil < :now`. The
 * claimed record carries the job's `reservation` (what `POST /v1/jobs` reserved), and the record
 * written no longer does: exactly one run ever receives it.
 */
export function claimTransition(
  record: JobRecord | undefined,
  now: number,
  leaseMs: number,
): { result: ClaimResult; write?: JobRecord | undefined } {
  if (!record) return { result: { kind: 'missing' } };
  if (isFinished(record.status)) return { result: { kind: 'finished', record } };
  if (record.status === 'running' && (record.leaseUntil ?? 0) >= now) return { result: { kind: 'busy' } };
  const claimed: JobRecord = { ...record, status: 'running', leaseUntil: now + leaseMs, updatedAt: now };
  const { reservation: _handedOver, ...write } = claimed;
  return { result: { kind: 'claimed', record: claimed }, write };
}

/** `running` → `succeeded` with the answer and the run appended; the lease goes. */
export function succeedTransition(
  record: JobRecord | undefined,
  result: JobResult,
  run: JobRun,
  now: number,
): JobRecord | undefined {
  if (record?.status !== 'running') return undefined;
  const { leaseUntil: _lease, error: _error, ...rest } = record;
  return { ...rest, status: 'succeeded', result, runs: [...record.runs, run], updatedAt: now };
}

/**
 * `running` → `failed` with the error (terminal) or `retrying` (the queue brings it back), the run
 * appended and the lease gone, so that the redelivered message can claim it at once. A job that is
 * no longer running (another worker finished it) keeps its outcome.
 */
export function failTransition(
  record: JobRecord | undefined,
  run: JobRun,
  now: number,
  terminal: { code: string; message: string } | undefined,
): JobRecord | undefined {
  if (record?.status !== 'running') return undefined;
  const { leaseUntil: _lease, ...rest } = record;
  return {
    ...rest,
    status: terminal ? 'failed' : 'retrying',
    ...(terminal ? { error: terminal } : {}),
    runs: [...record.runs, run],
    updatedAt: now,
  };
}

/** Records the one delivery: only a record with a target and no `deliveredAt` yet. */
export function deliveredTransition(record: JobRecord | undefined, now: number): JobRecord | undefined {
  if (!record?.deliver || record.deliver.deliveredAt !== undefined) return undefined;
  return { ...record, deliver: { ...record.deliver, deliveredAt: now }, updatedAt: now };
}

/** Marks the message as sent (`enqueuedAt`); a missing record stays missing. */
export function enqueuedTransition(record: JobRecord | undefined, now: number): JobRecord | undefined {
  return record && { ...record, enqueuedAt: now, updatedAt: now };
}
