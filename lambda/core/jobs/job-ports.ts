import type { Target } from '../gateway/target.js';
import type { JobMessage, JobRecord, JobResult, JobRun } from './job.js';
import type { JobQuota } from './job-quota.js';

/** The outcome of taking a job for a run. */
export type ClaimResult =
  | { kind: 'claimed'; record: JobRecord }
  /** Already succeeded or failed: acknowledge without running (a replay never delivers twice). */
  | { kind: 'finished'; record: JobRecord }
  /** Another worker holds a live lease: try again later. */
  | { kind: 'busy' }
  | { kind: 'missing' };

/**
 * Where jobs live (DynamoDB in AWS, memory locally). Every status change is a conditional write,
 * so two workers (or a replay racing a retry) can never both run or both deliver a job.
 */
export interface JobStore {
  /**
   * Creates the record unless the id exists. `false` when it existed (a duplicate delivery, an
   * idempotent repeat). With `quota`, throws `JobQuotaExceededError` instead of creating a job
   * when `quota.owner` already has `quota.max` unfinished jobs.
   */
  create(record: JobRecord, quota?: JobQuota): Promise<boolean>;
  get(jobId: string): Promise<JobRecord | undefined>;
  /** The record whose `publicId` is `publicId` (a scheduled job), or undefined. */
  getByPublicId(publicId: string): Promise<JobRecord | undefined>;
  /**
   * Makes {@link getByPublicId} find `jobId` under `publicId` until `expiresAt` (epoch seconds).
   * Idempotent; fan-out calls it after `create` and before sending the message.
   */
  linkPublicId(publicId: string, jobId: string, expiresAt: number): Promise<void>;
  /** Marks the record enqueued (the message is on the queue). */
  markEnqueued(jobId: string, now: number): Promise<void>;
  /**
   * `queued`/`retrying` (or `running` with an expired lease) → `running` with a lease until
   * `now + leaseMs`. The claimed record carries the job's `reservation`, which the same write
   * removes from the store: exactly one run ever receives it.
   */
  claim(jobId: string, now: number, leaseMs: number): Promise<ClaimResult>;
  /** `running` → `succeeded`, with the result and the run. `false` when it was not running. */
  succeed(jobId: string, result: JobResult, run: JobRun, now: number): Promise<boolean>;
  /** `running` → `failed` (terminal) or `retrying` (SQS will redeliver), keeping the run. */
  fail(
    jobId: string,
    run: JobRun,
    now: number,
    terminal: { code: string; message: string } | undefined,
  ): Promise<void>;
  /** Records the one delivery. `true` only for the caller whose write recorded it. */
  markDelivered(jobId: string, now: number): Promise<boolean>;
}

/** Where job messages go (SQS in AWS, memory locally). */
export interface JobQueue {
  send(message: JobMessage, options: { delaySeconds: number }): Promise<void>;
}

/** The run admission is asked about. */
export interface JobRunRequest {
  jobId: string;
  target: Target;
  request: JobRecord['request'];
  /** The caller key whose limits apply besides the pipeline's; undefined for scheduled and older jobs. */
  keyName: string | undefined;
  /** What `POST /v1/jobs` reserved for this run, as the claim handed it over (unchecked). */
  reservation: unknown;
}

/** Admission of a job's run (docs/jobs.md#admission). */
export interface JobAdmission {
  /**
   * Takes over the POST's reservation when the run has one; else reserves the run under its
   * key's and pipeline's limits. `end` settles it once the run is over (its ledger lines carry
   * the job id) and resolves once the settlement is written: the worker's invocation must not end
   * (and the container freeze) with it under way. Never rejects. A refusal says which code and
   * when the limit has room again.
   */
  admit(
    run: JobRunRequest,
  ): Promise<
    { ok: true; end(): Promise<void> } | { ok: false; code: string; resetAt: number; message: string }
  >;
}
