import type { ScheduleConfig } from '../catalog/jobs-config-schema.js';
import { SwitchyardError } from '../errors.js';
import type { Clock, Random } from '../time.js';
import { type JobRecord, randomPublicJobId, scheduledJobId, spreadDelaySeconds } from './job.js';
import type { JobQueue, JobStore } from './job-ports.js';

/** What a fan-out needs: where jobs live, where their messages go, and injected time and chance. */
export interface FanOutDeps {
  store: JobStore;
  queue: JobQueue;
  clock: Clock;
  /** Draws each job's `DelaySeconds` inside the schedule's `spreadSeconds`. */
  random: Random;
  /** Days a job record is kept (its TTL): config `jobs.retentionDays`. */
  retentionDays: number;
  /** New public ids for scheduled jobs. Default {@link randomPublicJobId}. */
  newPublicId?: (() => string) | undefined;
  /** Jobs created and sent at the same time. Default 8. */
  concurrency?: number | undefined;
}

/** One job this fan-out put on the queue. */
export interface EnqueuedJob {
  /** The internal, deterministic id. */
  jobId: string;
  /** The id callers read it by (`GET /v1/jobs/{id}`, webhooks). */
  publicId: string;
  /** The `DelaySeconds` it was sent with: 0 … `spreadSeconds`. */
  delaySeconds: number;
  /** True when the record already existed without `enqueuedAt` (a fan-out that crashed before sending). */
  resent: boolean;
}

/** The result of one fan-out: what was enqueued now, and what an earlier firing already enqueued. */
export interface FanOutResult {
  enqueued: EnqueuedJob[];
  /** Job ids that were already on the queue for this schedule and time: nothing was sent for them. */
  duplicates: string[];
}

/**
 * Some jobs could not be created or sent. The others went out; running the fan-out again for the
 * same time sends exactly the missing ones, which is what an EventBridge retry does.
 */
export class FanOutError extends SwitchyardError {
  readonly result: FanOutResult;
  /** Job id → the error's name and message. */
  readonly failures: ReadonlyMap<string, string>;
  constructor(schedule: string, result: FanOutResult, failures: Map<string, string>, cause: unknown) {
    super(
      `schedule '${schedule}': ${failures.size} job(s) not enqueued: ${[...failures.keys()].join(', ')}`,
      {
        cause,
      },
    );
    this.name = 'FanOutError';
    this.result = result;
    this.failures = failures;
  }
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The scheduled time as the job id carries it: ISO 8601 in UTC to the second, so EventBridge's
 * `2026-11-29T03:00:00Z` and a hand-typed `2026-11-29T03:00:00.000Z` name the same firing.
 * Throws `SwitchyardError` for a time that does not parse.
 */
export function normalizeScheduledTime(time: string): string {
  // Date.parse alone accepts prose ("tomorrow at 3" parses in V8): insist on ISO 8601 with a zone.
  const ms = ISO_TIME.test(time) ? Date.parse(time) : Number.NaN;
  if (Number.isNaN(ms)) throw new SwitchyardError(`scheduled time '${time}' is not an ISO 8601 time`);
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  });
  await Promise.all(lanes);
}

/**
 * Fans one firing of a schedule out into durable jobs: for each configured job, create its record
 * with the deterministic id `<schedule>:<job id>:<scheduled time>` (a conditional put), send its
 * message with a random `DelaySeconds` inside `spreadSeconds`, then mark it enqueued. A duplicate
 * EventBridge delivery finds every record enqueued and sends nothing; a record without
 * `enqueuedAt` (the last run crashed between put and send) is sent again. Should two firings race,
 * a job can get two messages; the worker's conditional claim runs it once and delivers it once.
 * Throws `FanOutError` after trying every job when some could not be enqueued.
 */
export async function fanOutSchedule(
  schedule: ScheduleConfig,
  name: string,
  scheduledTime: string,
  deps: FanOutDeps,
): Promise<FanOutResult> {
  const time = normalizeScheduledTime(scheduledTime);
  const result: FanOutResult = { enqueued: [], duplicates: [] };
  const failures = new Map<string, string>();
  let firstError: unknown;
  const spread = schedule.spreadSeconds;

  await eachLimited(schedule.jobs, deps.concurrency ?? 8, async (job) => {
    const jobId = scheduledJobId(name, job.id, time);
    try {
      const record = scheduledRecord(schedule, name, job.request, jobId, deps);
      let resent = false;
      // The first create wins, and with it its public id: a retried firing keeps the one stored.
      let publicId = record.publicId as string;
      if (!(await deps.store.create(record))) {
        const existing = await deps.store.get(jobId);
        // Gone again (TTL) or already on the queue: either way this firing owes it nothing.
        if (existing === undefined || existing.enqueuedAt !== undefined) {
          result.duplicates.push(jobId);
          return;
        }
        publicId = existing.publicId ?? jobId;
        resent = true;
      }
      if (publicId !== jobId) await deps.store.linkPublicId(publicId, jobId, record.expiresAt);
      const delaySeconds = spreadDelaySeconds(spread, deps.random);
      await deps.queue.send({ jobId }, { delaySeconds });
      await deps.store.markEnqueued(jobId, deps.clock.now());
      result.enqueued.push({ jobId, publicId, delaySeconds, resent });
    } catch (error) {
      firstError ??= error;
      failures.set(jobId, error instanceof Error ? `${error.name}: ${error.message}` : String(error));
    }
  });

  if (failures.size > 0) throw new FanOutError(name, result, failures, firstError);
  return result;
}

/** The stored record of one scheduled job, queued as of now. */
function scheduledRecord(
  schedule: ScheduleConfig,
  name: string,
  request: JobRecord['request'],
  jobId: string,
  deps: FanOutDeps,
): JobRecord {
  const now = deps.clock.now();
  return {
    jobId,
    publicId: (deps.newPublicId ?? randomPublicJobId)(),
    pipeline: schedule.pipeline,
    request,
    status: 'queued',
    createdAt: now,
    updatedAt: now,
    runs: [],
    deliver: schedule.deliver && {
      url: schedule.deliver.url,
      secretName: schedule.deliver.secretName,
      secretEnv: schedule.deliver.secretEnv,
    },
    schedule: name,
    expiresAt: Math.floor(now / 1000) + deps.retentionDays * 86_400,
  };
}
