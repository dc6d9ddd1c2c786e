/** The config sections of durable jobs: `schedules`, `jobs` and `webhooks`. Every default is filled here. */
import * as z from 'zod';
import type { StoredJobRequest } from '../jobs/job.js';
import { lazySchema } from '../lazy-schema.js';
import { envVarName, keyName, positiveInt } from './config-fields.js';
import { scheduleExpressionSchema } from './schedule-expression.js';
import { timeZoneSchema } from './time-zone.js';

/** Webhook delivery settings shared by every schedule. */
export const webhooksSchema = lazySchema(() =>
  z.strictObject({
    /** Accept `http://` URLs beyond loopback (e.g. a receiver inside a private network). Default false. */
    allowHttp: z.boolean().default(false),
    /** Most bytes read from a receiver's response body; the rest is discarded. Default 4096. */
    maxResponseBytes: positiveInt.max(1_048_576).default(4_096),
  }),
);

/** Where a scheduled job's answer is delivered: a webhook signed with HMAC-SHA256 over the body. */
export const deliverSchema = lazySchema(() =>
  z.strictObject({
    url: z.url({ protocol: /^https?$/ }),
    /** Secret for the signature: an SSM SecureString (`/…`) or Secrets Manager name (AWS mode). */
    secretName: z.string().min(1).optional(),
    /** Environment variable with the secret (local mode). */
    secretEnv: envVarName.optional(),
  }),
);

/**
 * The schema of a job's request: the jobs door's (`lambda/doors/jobs/job-request-schema.ts`),
 * given by whoever builds the config schema, since the core knows no wire format.
 */
export type JobRequestSchema = z.ZodType<StoredJobRequest>;

/** The schema of one schedule, its jobs' requests checked by `request` (the jobs door's schema). */
export function createScheduleSchema(request: JobRequestSchema) {
  /** One job of a schedule's fan-out: a stable id and the chat request to run. */
  const scheduledJobSchema = z.strictObject({
    id: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'may contain only letters, digits and - _ . (at most 64)'),
    request,
  });
  return (
    z
      .strictObject({
        /** EventBridge Scheduler `rate(...)` or `cron(...)`. */
        expression: scheduleExpressionSchema,
        /** IANA time zone a `cron(...)` is read in (EventBridge Scheduler follows its daylight saving). Default `UTC`. */
        timezone: timeZoneSchema.default('UTC'),
        /**
         * EventBridge Scheduler's flexible time window, in minutes (1–1440): AWS starts the firing's
         * fan-out at a moment of its choosing up to this long after the scheduled time. Default: off.
         * A schedule spreads either this way or by `spreadSeconds`, never both.
         */
        flexibleWindowMinutes: z.number().int().min(1).max(1440).optional(),
        /** The pipeline every job of this schedule runs on. */
        pipeline: z.string().min(1),
        jobs: z.array(scheduledJobSchema).min(1, 'must hold at least one job'),
        /** Spread the fan-out over this many seconds (0–900) to flatten the cron spike. Default 0. */
        spreadSeconds: z.number().int().min(0).max(900).default(0),
        /** Where answers go. Default: nowhere (read them with `GET /v1/jobs/{id}`). */
        deliver: deliverSchema.optional(),
        /**
         * Names of the caller keys that may read this schedule's jobs with `GET /v1/jobs/{id}` (operator
         * keys always may). Default none: with authentication on, only operators read them.
         */
        readers: z.array(keyName).default([]),
      })
      // Two random delays on one firing: the window moves the whole fan-out, then the spread moves each
      // job again, so no one could say when a job starts. One of them per schedule (docs/jobs.md).
      .superRefine((schedule, ctx) => {
        if (schedule.flexibleWindowMinutes !== undefined && schedule.spreadSeconds > 0)
          ctx.addIssue({
            code: 'custom',
            path: ['flexibleWindowMinutes'],
            message:
              'a schedule spreads by flexibleWindowMinutes or by spreadSeconds, not both: remove one (or set spreadSeconds to 0)',
          });
      })
  );
}

/** Schedule name → schedule (see {@link createScheduleSchema}). Default none. */
export function createSchedulesSchema(request: JobRequestSchema) {
  return z
    .record(
      z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'schedule names may contain only letters, digits, - and _'),
      createScheduleSchema(request),
    )
    .default({});
}

/** Durable job settings. */
export const jobsSchema = lazySchema(() =>
  z.strictObject({
    /** Receives before a job's message moves to the dead-letter queue. Default 3. */
    maxReceiveCount: z.number().int().min(1).max(100).default(3),
    /** Days a job record is kept (TTL), and the queues' retention. Default 14. */
    retentionDays: z.number().int().min(1).max(14).default(14),
    /**
     * Unfinished jobs (queued, running or retrying) one caller key may have at once, unless
     * `admission.keys.<key>.maxQueuedJobs` (or `admission.defaultKey.maxQueuedJobs`) says otherwise;
     * over it `POST /v1/jobs` answers 429 `job_quota_exceeded`. Without authentication no key quota
     * applies. Default 100.
     */
    maxQueuedPerKey: z.number().int().min(1).max(100_000).default(100),
  }),
);

export type ScheduleConfig = z.output<ReturnType<typeof createScheduleSchema>>;
export type DeliverConfig = z.infer<typeof deliverSchema>;
export type WebhooksConfig = z.infer<typeof webhooksSchema>;
export type JobsConfig = z.infer<typeof jobsSchema>;
