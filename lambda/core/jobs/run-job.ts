import type { ChatResult } from '../chat/chat-model.js';
import { toChatRequest } from '../chat/chat-request-schema.js';
import type { Gateway } from '../gateway/gateway.js';
import type { Logger } from '../logger.js';
import type { RouteFailure, RouteSuccess } from '../router/route-types.js';
import { terminalError } from '../router/terminal-error.js';
import type { Clock } from '../time.js';
import { type Deliverer, webhookBody } from './deliverer.js';
import type { JobRecord, JobResult, JobRun } from './job.js';
import type { JobAdmission, JobStore } from './job-ports.js';

/** What the worker does with the message: delete it (`done`) or let the queue redeliver it (`retry`). */
export type RunJobOutcome = 'done' | 'retry';

/** What running one job needs. */
export interface RunJobDeps {
  store: JobStore;
  /** The same gateway the HTTP API routes through: breakers, attempt loop, ledger. */
  gateway: Pick<Gateway, 'resolveTarget' | 'generate'>;
  /** Sends finished jobs that have a `deliver` target. Absent: deliveries wait. */
  deliverer?: Deliverer | undefined;
  clock: Clock;
  /**
   * How long a claim keeps other workers off the job, in ms. Make it longer than the pipeline's
   * deadline plus a delivery, and no longer than the queue's visibility timeout.
   */
  leaseMs: number;
  log: Logger;
  /** Aborts the run (the worker is shutting down): the job goes back to the queue. */
  signal?: AbortSignal | undefined;
  /** Admission of runs (the POST's reservation, or the key's and pipeline's limits). Absent: every run is admitted. */
  admission?: JobAdmission | undefined;
}

function runOf(result: RouteSuccess<ChatResult> | RouteFailure, at: number): JobRun {
  return {
    at,
    // A last-resort answer succeeds the job, and its run says what it was.
    reason: result.ok ? (result.degraded ? 'last_resort' : 'success') : result.reason,
    attempts: result.attempts.length,
    route: result.route,
    model: result.ok ? result.model : undefined,
    failureClass: result.ok ? undefined : result.error?.failureClass,
  };
}

/**
 * Delivers a finished record once. `true` when nothing is owed any more (delivered now or before,
 * or nowhere to deliver); `false` when the receiver did not take it and the message must return.
 */
async function deliverOnce(record: JobRecord, deps: RunJobDeps): Promise<boolean> {
  const body = webhookBody(record);
  if (!record.deliver || record.deliver.deliveredAt !== undefined || body === undefined) return true;
  if (!deps.deliverer) {
    deps.log.warn('job delivery skipped: no deliverer configured', { jobId: record.jobId });
    return false;
  }
  const outcome = await deps.deliverer.deliver(record.deliver, body);
  if (!outcome.ok) {
    deps.log.warn('job delivery failed; the message returns for another try', {
      jobId: record.jobId,
      reason: outcome.reason,
    });
    return false;
  }
  // Only the write that records it counts; a racing worker that also got a 2xx logs nothing new.
  const recorded = await deps.store.markDelivered(record.jobId, deps.clock.now());
  if (recorded) deps.log.info('job delivered', { jobId: record.jobId, status: outcome.status });
  return true;
}

/** Finishes with the stored record: deliver when owed, then done; a store without the record is done too. */
async function settle(jobId: string, deps: RunJobDeps): Promise<RunJobOutcome> {
  const record = await deps.store.get(jobId);
  if (record === undefined) return 'done';
  return (await deliverOnce(record, deps)) ? 'done' : 'retry';
}

/**
 * Runs one job, the way the worker Lambda and the local runner both do:
 * claim it (a conditional write); a job that already finished is only delivered if it still owes
 * a delivery, never run again, so a replay never delivers twice; a job another worker holds comes
 * back later. A claimed job runs through the router with the job id as the ledger's `requestId`.
 * Success → `succeeded`, then the webhook. A non-fallback failure (`stopped`: an invalid request)
 * → terminal `failed` at once, then the webhook. Every other failure → `retrying`, and the queue
 * redelivers the message until `maxReceiveCount` sends it to the dead-letter queue. Store errors
 * propagate: the message stays on the queue.
 */
export async function runJob(jobId: string, deps: RunJobDeps): Promise<RunJobOutcome> {
  const { store, clock, log } = deps;
  const claim = await store.claim(jobId, clock.now(), deps.leaseMs);
  if (claim.kind === 'missing') {
    log.warn('job message without a record; dropped', { jobId });
    return 'done';
  }
  if (claim.kind === 'busy') return 'retry';
  if (claim.kind === 'finished') {
    log.info('job already finished; not run again', { jobId, status: claim.record.status });
    return (await deliverOnce(claim.record, deps)) ? 'done' : 'retry';
  }

  return runClaimed(jobId, claim.record, deps);
}

/** Runs a claimed job through the router and records what came of it. */
async function runClaimed(jobId: string, record: JobRecord, deps: RunJobDeps): Promise<RunJobOutcome> {
  const { store, clock, log } = deps;
  const target = await deps.gateway.resolveTarget(record.pipeline, undefined);
  if (target.kind === 'unknown') {
    const run: JobRun = { at: clock.now(), reason: 'stopped', attempts: 0, route: '' };
    await store.fail(jobId, run, clock.now(), { code: 'model_not_found', message: target.message });
    log.warn('job failed: its pipeline no longer resolves', { jobId, pipeline: record.pipeline });
    return settle(jobId, deps);
  }

  const admitted = await deps.admission?.admit({
    jobId,
    target,
    request: record.request,
    keyName: record.keyLimits ? record.owner : undefined,
    reservation: record.reservation,
  });
  if (admitted && !admitted.ok) {
    // Never lost: the job stays retrying, the queue brings it back, and after maxReceiveCount
    // it waits in the dead-letter queue for a replay.
    const refused = { code: admitted.code, resetsAt: admitted.resetAt };
    const run: JobRun = { at: clock.now(), reason: 'stopped', attempts: 0, route: '', refused };
    await store.fail(jobId, run, clock.now(), undefined);
    log.warn('job refused by admission; the queue will bring it back', {
      jobId,
      pipeline: record.pipeline,
      code: admitted.code,
      resetsAt: new Date(admitted.resetAt).toISOString(),
    });
    return 'retry';
  }
  try {
    const result = await deps.gateway.generate(target, toChatRequest(record.request), {
      requestId: jobId,
      signal: deps.signal,
    });
    return await recordRun(jobId, record, target.pipeline, result, deps);
  } finally {
    if (admitted?.ok) await admitted.end();
  }
}

/** Stores a run's outcome: succeeded or terminally failed (then delivered), or back to the queue. */
async function recordRun(
  jobId: string,
  record: JobRecord,
  pipeline: string,
  result: RouteSuccess<ChatResult> | RouteFailure,
  deps: RunJobDeps,
): Promise<RunJobOutcome> {
  const { store, log } = deps;
  const now = deps.clock.now();
  const run = runOf(result, now);
  const fields = {
    jobId,
    pipeline: record.pipeline,
    reason: run.reason,
    attempts: run.attempts,
    route: run.route,
  };

  if (result.ok) {
    const answer: JobResult = {
      model: result.model,
      content: result.value.content,
      toolCalls: result.value.toolCalls.length > 0 ? result.value.toolCalls : undefined,
      finishReason: result.value.finishReason,
      usage: result.value.usage,
    };
    if (!(await store.succeed(jobId, answer, run, now))) {
      // Our lease ran out and another worker took the job: its outcome stands, the message returns.
      log.warn('job result not recorded: the lease was lost', fields);
      return 'retry';
    }
    log.info('job succeeded', fields);
    return settle(jobId, deps);
  }

  if (result.reason === 'stopped') {
    const t = terminalError(result, pipeline);
    await store.fail(jobId, run, now, { code: t.code, message: t.message });
    log.warn('job failed: not retryable', { ...fields, code: t.code });
    return settle(jobId, deps);
  }

  // exhausted, deadline, cancelled: another receive may find a healthy route.
  await store.fail(jobId, run, now, undefined);
  log.warn('job run failed; the queue will redeliver it', fields);
  return 'retry';
}
