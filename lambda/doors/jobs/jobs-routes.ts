/**
 * The jobs door, `/v1/jobs`: `POST /` takes a chat completion request to run later (the same
 * request lifecycle as chat: bounds, target, then admission at POST against the key's limits),
 * `GET /{id}` reads one back. Errors are the app's default envelope.
 */
import { createHash, randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { validator } from 'hono/validator';
import * as z from 'zod';
import { toStoredTicket } from '../../core/admission/stored-ticket.js';
import type { Target } from '../../core/gateway/target.js';
import { type JobRecord, publicJobId } from '../../core/jobs/job.js';
import type { JobStore } from '../../core/jobs/job-ports.js';
import { lazySchema } from '../../core/lazy-schema.js';
import type { LifecycleCall } from '../../core/lifecycle/request-lifecycle.js';
import type { AccessPolicy } from '../../http/access-policy.js';
import type { HttpEnv } from '../../http/http-env.js';
import { jsonBody } from '../../http/json-body.js';
import { errorBody, errorResponse } from '../../http/openai-errors.js';
import { systemClock } from '../../wiring/system-time.js';
import {
  type ChatCompletionBody,
  chatCompletionBodySchema,
  chatCompletionDemand,
} from '../openai-chat/chat-request-schema.js';
import { BUDGET_REMAINING_HEADER } from '../shared/admission-gate.js';
import type { Door, DoorDeps } from '../shared/door.js';
import {
  lifecycleCall,
  lifecycleRefusalResponse,
  neutralBody,
  resolvesTarget,
  withinBounds,
} from '../shared/door-lifecycle.js';
import { admitJob, type JobAdmission, type JobAdmissionDeps } from './job-admission.js';
import { jobView } from './job-view.js';

/**
 * The body of `POST /v1/jobs`: a chat completion request, run later. No `deliver` here: a webhook
 * URL chosen by a caller and signed with the operator's secret would let any caller send signed
 * requests anywhere; API jobs are read back with `GET /v1/jobs/{id}`.
 */
const jobBodySchema = lazySchema(() =>
  chatCompletionBodySchema.refine((body) => body.stream !== true, {
    message: 'a job is not streamed; leave stream unset or false',
    path: ['stream'],
  }),
);

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
  job: NewJob & { call: LifecycleCall },
  deps: DoorDeps,
  taking: JobAdmissionDeps,
  retentionDays: number,
): Promise<Response> {
  const { idempotencyKey, owner } = job;
  const idempotent = idempotencyKey !== undefined;
  const record = newJobRecord(job, taking.clock.now(), retentionDays);
  if (idempotent && (await taking.store.get(record.jobId)))
    return admissionResponse(await admitJob(taking, record, idempotent), idempotent);

  // The lifecycle's admit step, at POST: the job is its key's request (docs/jobs.md#admission).
  const reserved = await deps.lifecycle.admit(job.call, job.target);
  if (!reserved.ok) return lifecycleRefusalResponse(reserved.refusal, taking.clock.now());
  const ticket = reserved.value;
  record.reservation = ticket && toStoredTicket(ticket);
  const quota = await deps.admission?.jobQuota?.(owner);
  const outcome = await admitJob(taking, record, idempotent, quota);
  // An unqueued job is stored with its reservation: the caller's retry queues it. Any other job
  // not stored gives back its tokens and spend; its request stays counted, as a refused chat's does.
  if (outcome.kind !== 'accepted' && outcome.kind !== 'unqueued' && ticket && ticket.holds.length > 0)
    await deps.admission?.admission.settle(ticket, NOTHING);
  const response = admissionResponse(outcome, idempotent);
  if (outcome.kind === 'accepted' && ticket?.budgetRemainingUsd !== undefined)
    response.headers.set(BUDGET_REMAINING_HEADER, ticket.budgetRemainingUsd.toFixed(6));
  return response;
}

/** Nothing used: what a reservation is settled with when its job was never stored. */
const NOTHING = { tokens: 0, costNano: 0 } as const;

/** The body read into the neutral request's demand; the record stores the body itself. */
const neutral = (body: ChatCompletionBody) => ({
  model: body.model,
  demand: chatCompletionDemand(body),
  request: body,
  streamed: false,
});

/** The jobs API as a sub-app, mounted at `/v1/jobs`, when the deployment has a job store and queue. */
export function createJobsApp(deps: DoorDeps): Hono<HttpEnv> | undefined {
  if (!deps.jobs) return undefined;
  const { store, queue, retentionDays } = deps.jobs;
  const clock = deps.jobs.clock ?? systemClock;
  const taking: JobAdmissionDeps = { store, queue, clock, log: deps.log };
  const jobs = new Hono<HttpEnv>();

  jobs.post(
    '/',
    jsonBody(jobBodySchema, deps.bounds),
    neutralBody(neutral),
    withinBounds(deps.lifecycle, 'chat'),
    idempotencyKeyHeader,
    resolvesTarget(deps.lifecycle, 'chat'),
    (c) => {
      const job = {
        body: c.req.valid('json'),
        target: c.get('target'),
        owner: c.get('callerKeyName'),
        idempotencyKey: c.req.valid('header').idempotencyKey,
        call: lifecycleCall(c, 'chat'),
      };
      return takeJob(job, deps, taking, retentionDays);
    },
  );

  jobs.get('/:id', async (c) => {
    const id = c.req.param('id');
    const record = await findVisible(store, id, c.get('callerKeyName'), deps.access);
    return record ? c.json(jobView(record)) : jobNotFound(id);
  });
  return jobs;
}

/** `/v1/jobs`, untraced, in the default envelope; absent without a job store. */
export const jobsDoor: Door = { path: '/v1/jobs', app: createJobsApp };
