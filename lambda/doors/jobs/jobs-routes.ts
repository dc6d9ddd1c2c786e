import { createHash, randomUUID } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { validator } from 'hono/validator';
import * as z from 'zod';
import { toStoredTicket } from '../../core/admission/stored-ticket.js';
import type { Target } from '../../core/gateway/target.js';
import { type JobRecord, publicJobId } from '../../core/jobs/job.js';
import type { JobQueue, JobStore } from '../../core/jobs/job-ports.js';
import type { Logger } from '../../core/logger.js';
import type { Clock } from '../../core/time.js';
import type { AccessPolicy } from '../../http/access-policy.js';
import { BUDGET_REMAINING_HEADER, refusalResponse } from '../../http/admission-gate.js';
import {
  routeTarget,
  type TargetDeps,
  type TargetEnv,
  withinMessageLimit,
} from '../../http/chat-admission.js';
import type { HttpEnv } from '../../http/http-env.js';
import { jsonBody } from '../../http/json-body.js';
import { errorBody, errorResponse } from '../../http/openai-errors.js';
import { systemClock } from '../../wiring/system-time.js';
import { type ChatCompletionBody, chatCompletionBodySchema } from '../openai-chat/chat-request-schema.js';
import { admitJob, type JobAdmission, type JobAdmissionDeps } from './job-admission.js';
import { type JobPostAdmission, releaseJob, reserveJob } from './job-reservation.js';
import { jobView } from './job-view.js';

/** What `POST /v1/jobs` and `GET /v1/jobs/{id}` need. Absent from `createHttpApp`: no job routes. */
export interface JobsHttpOptions {
  store: JobStore;
  queue: JobQueue;
  /** Days a job record is kept (TTL): config `jobs.retentionDays`, whose schema holds the default. */
  retentionDays: number;
  clock?: Clock | undefined;
}

/** What the jobs sub-app shares with the rest of the app. */
export interface JobsAppDeps extends TargetDeps {
  jobs: JobsHttpOptions;
  log: Logger;
  /** Who reads scheduled jobs: the schedule's readers and operator keys. */
  access: () => AccessPolicy;
  /** Admission of new jobs against their key's and pipeline's limits and quota. Absent: every job is taken. */
  admission?: JobPostAdmission | undefined;
}

/**
 * The body of `POST /v1/jobs`: a chat completion request, run later. No `deliver` here: a webhook
 * URL chosen by a caller and signed with the operator's secret would let any caller send signed
 * requests anywhere; API jobs are read back with `GET /v1/jobs/{id}`.
 */
const jobBodySchema = chatCompletionBodySchema.refine((body) => body.stream !== true, {
  message: 'a job is not streamed; leave stream unset or false',
  path: ['stream'],
});

/** Printable ASCII, as Stripe and the IETF draft allow; long enough for a UUID or a hash. */
const idempotencyKeySchema = z.string().regex(/^[\x21-\x7e]{1,255}$/);
const JOB_ID = /^[A-Za-z0-9_.:-]{1,300}$/;

/** `job_` + 32 hex: from the caller key's name and the `Idempotency-Key`, so a repeat finds its job. */
export function idempotentJobId(callerKeyName: string | undefined, key: string): string {
  const digest = createHash('sha256')
    .update(`${callerKeyName ?? ''}\n${key}`, 'utf8')
    .digest('hex');
  return `job_${digest.slice(0, 32)}`;
}

/** 400 naming `Idempotency-Key` for a malformed one; else its value (undefined: none sent). */
const idempotencyKeyHeader = validator('header', (headers) => {
  const key: string | undefined = headers['idempotency-key'];
  if (key === undefined || idempotencyKeySchema.safeParse(key).success) return { idempotencyKey: key };
  return errorResponse(
    400,
    errorBody(
      'Idempotency-Key must be 1-255 printable ASCII characters',
      'invalid_request_error',
      'invalid_value',
      'Idempotency-Key',
    ),
  );
});

/** What a new job is made of, once the request passed every check. */
interface NewJob {
  body: ChatCompletionBody;
  target: Target;
  owner: string | undefined;
  idempotencyKey: string | undefined;
}

/**
 * The record of a new job: queued, owned by the caller's key, whose limits its runs count
 * against (`keyLimits`), kept `retentionDays`.
 */
function newJobRecord(job: NewJob, now: number, retentionDays: number): JobRecord {
  const { stream: _stream, stream_options: _options, ...request } = job.body;
  return {
    jobId: job.idempotencyKey
      ? idempotentJobId(job.owner, job.idempotencyKey)
      : `job_${randomUUID().replaceAll('-', '')}`,
    pipeline: job.target.pipeline,
    request,
    status: 'queued',
    createdAt: now,
    updatedAt: now,
    runs: [],
    expiresAt: Math.floor(now / 1000) + retentionDays * 86_400,
    owner: job.owner,
    keyLimits: true,
  };
}

const jobResponse = (record: JobRecord, status: 200 | 202, headers: Record<string, string> = {}) =>
  Response.json(jobView(record), { status, headers: { ...headers, location: `/v1/jobs/${record.jobId}` } });

/** The HTTP answer to each way taking a job can end. */
function admissionResponse(admission: JobAdmission, idempotent: boolean): Response {
  switch (admission.kind) {
    case 'accepted':
      return jobResponse(admission.record, 202);
    case 'replayed':
      return jobResponse(admission.record, 200, { 'idempotent-replayed': 'true' });
    case 'conflict':
      return errorResponse(
        409,
        errorBody(
          'this Idempotency-Key was used for a different request; use a new key',
          'invalid_request_error',
          'idempotency_key_reused',
          'Idempotency-Key',
        ),
      );
    case 'over_quota':
      return errorResponse(
        429,
        errorBody(admission.message, 'rate_limit_error', 'job_quota_exceeded', admission.quota.field),
        { 'retry-after': '30' },
      );
    case 'full':
      return errorResponse(503, errorBody(admission.message, 'api_error', 'jobs_full'), {
        'retry-after': '30',
      });
    case 'vanished':
      // It expired (TTL) between the two calls: rare enough that the caller's retry is the answer.
      return errorResponse(
        503,
        errorBody('job store changed underneath; retry', 'api_error', 'service_unavailable'),
      );
    case 'unqueued': {
      const retry = idempotent
        ? 'retry with the same Idempotency-Key'
        : 'retry with an Idempotency-Key next time';
      const message = `job ${admission.jobId} was saved but could not be queued; ${retry}`;
      return errorResponse(503, errorBody(message, 'api_error', 'queue_unavailable'));
    }
  }
}

/**
 * Whether a caller key may read a job. Authentication off (no key name): every job. An API job:
 * only the key that created it. A scheduled job: the schedule's readers and operator keys.
 */
function visibleTo(record: JobRecord, caller: string | undefined, access: AccessPolicy): boolean {
  if (caller === undefined) return true;
  if (record.owner !== undefined) return record.owner === caller;
  if (record.schedule !== undefined) return access.readsSchedule(caller, record.schedule);
  return true;
}

/**
 * The job a caller names by its public id, if this caller may read it. A scheduled job is found
 * only by its random public id, never by the internal `<schedule>:<job>:<time>` id, which anyone
 * could guess. Another key's job reads exactly like a missing one: its existence is not ours to reveal.
 */
async function findVisible(
  store: JobStore,
  id: string,
  caller: string | undefined,
  access: () => AccessPolicy,
): Promise<JobRecord | undefined> {
  if (!JOB_ID.test(id)) return undefined;
  const direct = await store.get(id);
  const found = direct && publicJobId(direct) === id ? direct : await store.getByPublicId(id);
  return found && visibleTo(found, caller, access()) ? found : undefined;
}

/** 404 `job_not_found`; only a well-formed id is echoed back, never junk from the URL. */
const jobNotFound = (id: string) =>
  errorResponse(
    404,
    errorBody(
      JOB_ID.test(id) ? `no job '${id}'` : 'no such job',
      'invalid_request_error',
      'job_not_found',
      'id',
    ),
  );

/**
 * `POST /v1/jobs` once the body passed its checks: an idempotent repeat is answered from the
 * stored job without counting again; a new job is admitted like a chat request of its key
 * (docs/jobs.md#admission), then stored under the key's quota with its reservation.
 */
async function takeJob(
  c: Context<
    TargetEnv,
    string,
    { out: { json: ChatCompletionBody; header: { idempotencyKey: string | undefined } } }
  >,
  deps: JobsAppDeps,
  taking: JobAdmissionDeps,
): Promise<Response> {
  const { idempotencyKey } = c.req.valid('header');
  const owner = c.var.callerKeyName;
  const job = { body: c.req.valid('json'), target: c.var.target, owner, idempotencyKey };
  const idempotent = idempotencyKey !== undefined;
  const record = newJobRecord(job, taking.clock.now(), deps.jobs.retentionDays);
  if (idempotent && (await taking.store.get(record.jobId)))
    return admissionResponse(await admitJob(taking, record, idempotent), idempotent);

  const reserved = await reserveJob(deps.admission, owner, job.target, job.body);
  if (!reserved.ok) return refusalResponse(reserved.refusal, taking.clock.now());
  const { ticket } = reserved;
  record.reservation = ticket && toStoredTicket(ticket);
  const quota = await deps.admission?.quotaOf(owner);
  const outcome = await admitJob(taking, record, idempotent, quota);
  // An unqueued job is stored with its reservation: the caller's retry queues it.
  if (outcome.kind !== 'accepted' && outcome.kind !== 'unqueued') await releaseJob(deps.admission, ticket);
  const response = admissionResponse(outcome, idempotent);
  if (outcome.kind === 'accepted' && ticket?.budgetRemainingUsd !== undefined)
    response.headers.set(BUDGET_REMAINING_HEADER, ticket.budgetRemainingUsd.toFixed(6));
  return response;
}

/** The jobs API as a sub-app, mounted at `/v1/jobs`: `POST /` takes a job, `GET /{id}` reads one. */
export function createJobsApp(deps: JobsAppDeps): Hono<HttpEnv> {
  const { store, queue } = deps.jobs;
  const clock = deps.jobs.clock ?? systemClock;
  const admission: JobAdmissionDeps = { store, queue, clock, log: deps.log };
  const jobs = new Hono<HttpEnv>();

  jobs.post(
    '/',
    jsonBody(jobBodySchema, deps.bounds),
    withinMessageLimit(deps.bounds),
    idempotencyKeyHeader,
    routeTarget(deps),
    (c) => takeJob(c, deps, admission),
  );

  jobs.get('/:id', async (c) => {
    const id = c.req.param('id');
    const record = await findVisible(store, id, c.var.callerKeyName, deps.access);
    return record ? c.json(jobView(record)) : jobNotFound(id);
  });
  return jobs;
}
