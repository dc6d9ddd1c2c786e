import { createHash, randomUUID } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { Catalog } from '../core/catalog/catalog.js';
import { formatPath } from '../core/catalog/parse-config.js';
import { chatCompletionBodySchema } from '../core/chat/chat-request-schema.js';
import { DEFAULT_REQUEST_BOUNDS, type RequestBounds } from '../core/chat/request-bounds.js';
import type { Gateway } from '../core/gateway/gateway.js';
import { type JobRecord, publicJobId } from '../core/jobs/job.js';
import type { JobQueue, JobStore } from '../core/jobs/job-ports.js';
import { jobView } from '../core/jobs/job-view.js';
import type { Logger } from '../core/logger.js';
import type { Clock } from '../core/time.js';
import { JobStoreFullError } from '../jobs/memory/memory-job-store.js';
import { systemClock } from '../wiring/system-time.js';
import type { AccessPolicy } from './access-policy.js';
import { messageCountResponse, outputTokensResponse } from './bounds-response.js';
import { errorBody, errorResponse } from './openai-errors.js';
import { requestIdOf } from './request-id.js';

/** What `POST /v1/jobs` and `GET /v1/jobs/{id}` need. Absent from `createHttpApp`: no job routes. */
export interface JobsHttpOptions {
  store: JobStore;
  queue: JobQueue;
  /** Days a job record is kept (TTL). Config `jobs.retentionDays`, default 14. */
  retentionDays?: number | undefined;
  clock?: Clock | undefined;
}

/** What the job routes share with the rest of the app. */
export interface JobsRouteContext {
  catalog: Catalog;
  /** Request bounds; default {@link DEFAULT_REQUEST_BOUNDS}. */
  bounds?: RequestBounds | undefined;
  /** Who reads scheduled jobs: the schedule's readers and operator keys. */
  access: () => AccessPolicy;
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

const invalid = (message: string, code: string, param: string | null, headers: Record<string, string>) =>
  errorResponse(400, errorBody(message, 'invalid_request_error', code, param), headers);

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

/** Registers `POST /v1/jobs` and `GET /v1/jobs/{id}` on the HTTP app. */
export function addJobsRoutes(
  app: Hono,
  gateway: Gateway,
  options: JobsHttpOptions,
  log: Logger,
  context: JobsRouteContext,
): void {
  const clock = options.clock ?? systemClock;
  const bounds = context.bounds ?? DEFAULT_REQUEST_BOUNDS;
  const retentionDays = options.retentionDays ?? 14;

  /**
   * The job a caller names by its public id. A scheduled job is found only by its random public
   * id, never by the internal `<schedule>:<job>:<time>` id, which anyone could guess.
   */
  async function findPublic(id: string): Promise<JobRecord | undefined> {
    const direct = await options.store.get(id);
    if (direct && publicJobId(direct) === id) return direct;
    return options.store.getByPublicId(id);
  }

  /** Puts a persisted record's message on the queue, unless an earlier request already did. */
  async function enqueue(record: JobRecord): Promise<JobRecord> {
    if (record.enqueuedAt !== undefined) return record;
    await options.queue.send({ jobId: record.jobId }, { delaySeconds: 0 });
    const now = clock.now();
    await options.store.markEnqueued(record.jobId, now);
    return { ...record, enqueuedAt: now, updatedAt: now };
  }

  async function replay(existing: JobRecord, incoming: JobRecord, headers: Record<string, string>) {
    const same =
      existing.pipeline === incoming.pipeline && canonical(existing.request) === canonical(incoming.request);
    if (!same) {
      return errorResponse(
        409,
        errorBody(
          'this Idempotency-Key was used for a different request; use a new key',
          'invalid_request_error',
          'idempotency_key_reused',
          'Idempotency-Key',
        ),
        headers,
      );
    }
    const record = await enqueue(existing);
    return Response.json(jobView(record), {
      status: 200,
      headers: { ...headers, 'idempotent-replayed': 'true', location: `/v1/jobs/${record.jobId}` },
    });
  }

  app.post('/v1/jobs', async (c: Context) => {
    const headers = { 'x-request-id': requestIdOf(c) };
    let raw: unknown;
    try {
      raw = JSON.parse(await c.req.text());
    } catch (error) {
      const detail = error instanceof SyntaxError ? error.message : 'unreadable body';
      return invalid(`request body is not valid JSON: ${detail}`, 'invalid_json', null, headers);
    }
    const parsed = jobBodySchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const param = issue ? formatPath(issue.path) : '';
      return invalid(
        `${param || 'body'}: ${issue?.message ?? 'invalid'}`,
        'invalid_value',
        param || null,
        headers,
      );
    }
    const tooMany = messageCountResponse(parsed.data, bounds, headers);
    if (tooMany) return tooMany;
    const keyHeader = c.req.header('idempotency-key');
    const key = keyHeader === undefined ? undefined : idempotencyKeySchema.safeParse(keyHeader);
    if (key && !key.success) {
      return invalid(
        'Idempotency-Key must be 1-255 printable ASCII characters',
        'invalid_value',
        'Idempotency-Key',
        headers,
      );
    }

    const target = await gateway.resolveTarget(parsed.data.model, c.req.header('x-switchyard-pipeline'));
    if (target.kind === 'unknown') {
      return errorResponse(
        404,
        errorBody(target.message, 'invalid_request_error', 'model_not_found', target.param),
        headers,
      );
    }
    const tooLong = outputTokensResponse(parsed.data, target, context.catalog, bounds, headers);
    if (tooLong) return tooLong;

    const { stream: _stream, stream_options: _options, ...request } = parsed.data;
    const callerKeyName = (c.get('callerKeyName') as string | undefined) ?? undefined;
    const jobId = key?.data
      ? idempotentJobId(callerKeyName, key.data)
      : `job_${randomUUID().replaceAll('-', '')}`;
    const now = clock.now();
    const record: JobRecord = {
      jobId,
      pipeline: target.pipeline,
      request,
      status: 'queued',
      createdAt: now,
      updatedAt: now,
      runs: [],
      expiresAt: Math.floor(now / 1000) + retentionDays * 86_400,
      owner: callerKeyName,
    };

    // Persist first: once the record exists, a lost enqueue is repaired by the caller's retry.
    let created: boolean;
    try {
      created = await options.store.create(record);
    } catch (error) {
      if (!(error instanceof JobStoreFullError)) throw error;
      log.warn('job refused: the local job store is full', { pipeline: record.pipeline });
      return errorResponse(503, errorBody(error.message, 'api_error', 'jobs_full'), {
        ...headers,
        'retry-after': '30',
      });
    }
    if (!created) {
      const existing = await options.store.get(jobId);
      if (existing) return replay(existing, record, headers);
      // It expired (TTL) between the two calls: rare enough that the caller's retry is the answer.
      return errorResponse(
        503,
        errorBody('job store changed underneath; retry', 'api_error', 'service_unavailable'),
        headers,
      );
    }
    let queued: JobRecord;
    try {
      queued = await enqueue(record);
    } catch (error) {
      log.error('job saved but not enqueued', {
        jobId,
        error: error instanceof Error ? error.name : String(error),
      });
      const retry = key ? 'retry with the same Idempotency-Key' : 'retry with an Idempotency-Key next time';
      return errorResponse(
        503,
        errorBody(
          `job ${jobId} was saved but could not be queued; ${retry}`,
          'api_error',
          'queue_unavailable',
        ),
        headers,
      );
    }
    log.info('job accepted', { jobId, pipeline: record.pipeline, idempotent: key !== undefined });
    return Response.json(jobView(queued), {
      status: 202,
      headers: { ...headers, location: `/v1/jobs/${jobId}` },
    });
  });

  app.get('/v1/jobs/:id', async (c) => {
    const id = c.req.param('id');
    const found = JOB_ID.test(id) ? await findPublic(id) : undefined;
    // Another key's job reads exactly like a missing one: its existence is not ours to reveal.
    const caller = c.get('callerKeyName' as never) as string | undefined;
    const record = found && visibleTo(found, caller, context.access()) ? found : undefined;
    if (!record) {
      // Only a well-formed id is echoed back: never junk from the URL.
      const message = JOB_ID.test(id) ? `no job '${id}'` : 'no such job';
      return errorResponse(404, errorBody(message, 'invalid_request_error', 'job_not_found', 'id'));
    }
    return c.json(jobView(record));
  });
}
