import { Hono } from 'hono';
import type { Catalog } from '../core/catalog/catalog.js';
import type { CorsConfig } from '../core/catalog/cors-config-schema.js';
import { DEFAULT_REQUEST_BOUNDS, type RequestBounds } from '../core/chat/request-bounds.js';
import { redactSecrets } from '../core/failures/redact-secrets.js';
import type { Gateway } from '../core/gateway/gateway.js';
import type { Logger } from '../core/logger.js';
import type { RequestTracing } from '../core/tracing/request-spans.js';
import { type AccessPolicy, operatorOnly } from './access-policy.js';
import { type AdmissionGateDeps, admissionGate, chatAsked } from './admission-gate.js';
import { anthropicErrors } from './anthropic-errors.js';
import { limitBodySize } from './body-limit.js';
import { type CallerKeySource, callerAuth } from './caller-auth.js';
import type { AdHocGate } from './chat-admission.js';
import { addChatCompletions } from './chat-completions.js';
import { corsPolicy } from './cors-policy.js';
import { addEmbeddings, embeddingsAsked } from './embeddings.js';
import type { HttpEnv } from './http-env.js';
import { addInfoRoutes } from './info-routes.js';
import type { JobPostAdmission } from './job-reservation.js';
import { createJobsApp, type JobsHttpOptions } from './jobs-routes.js';
import { addMessages } from './messages-route.js';
import { addObserveRoutes, type ObserveRoutes } from './observe-routes.js';
import { errorBody, errorResponse } from './openai-errors.js';
import { requestIdMiddleware } from './request-id.js';
import { traceRequests } from './trace-requests.js';
import { addUsageRoute } from './usage-route.js';

const NO_ACCESS: AccessPolicy = { isOperator: () => false, readsSchedule: () => false };

/** Largest request body accepted, in bytes. Default 1 MiB; beyond it the answer is 413. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export interface HttpAppOptions {
  gateway: Gateway;
  catalog: Catalog;
  log: Logger;
  maxBodyBytes?: number | undefined;
  /** Caller keys for `/v1/*` (401 without a valid one). Absent: no caller authentication. */
  callerKeys?: CallerKeySource | undefined;
  /** Job store and queue for `POST /v1/jobs` and `GET /v1/jobs/{id}`. Absent: no job routes (404). */
  jobs?: JobsHttpOptions | undefined;
  /** Bounds on messages and output tokens per request. Default {@link DEFAULT_REQUEST_BOUNDS}. */
  bounds?: RequestBounds | undefined;
  /**
   * Operator keys and schedule readers, read on every request (so a reload applies at once).
   * Absent: no key is an operator, no schedule has readers.
   */
  access?: (() => AccessPolicy) | undefined;
  /** Admission of chat requests and new jobs (docs/design.md#admission). Absent: every request is admitted. */
  admission?: (AdmissionGateDeps & { now: () => number; jobQuota?: JobPostAdmission['quotaOf'] }) | undefined;
  /** Which ad-hoc chains each caller may send, on every door and `/v1/jobs`. Absent: every one. */
  adHocChains?: AdHocGate | undefined;
  /** Spans per chat request and attempt (docs/design.md#traces). Absent: no spans, no cost. */
  tracing?: RequestTracing | undefined;
  /** `GET /metrics` and the status page (docs/operations.md#metrics). Absent: those routes 404. */
  observe?: ObserveRoutes | undefined;
  /** Browser origins allowed to call (the config's `cors`). Absent or none allowed: no CORS headers. */
  cors?: CorsConfig | undefined;
}

/**
 * The one HTTP app of Switchyard: `switchyard serve` runs it on node:http, the API Lambda runs it
 * behind API Gateway. Every error is an OpenAI envelope (Anthropic's on `/v1/messages`); nothing
 * answers with a stack trace.
 */
export function createHttpApp(options: HttpAppOptions): Hono<HttpEnv> {
  const { gateway, catalog, log } = options;
  const maxSize = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const app = new Hono<HttpEnv>();

  app.use('*', requestIdMiddleware);
  // First after the ids: a preflight carries no caller key and must not meet the 401 below.
  const corsMiddleware = corsPolicy(options.cors);
  if (corsMiddleware) app.use('*', corsMiddleware);
  // Outermost on its path, so every refusal below (keys, size, body, routing, admission) reads as Anthropic's.
  app.use('/v1/messages', anthropicErrors);
  if (options.tracing) {
    const chat = traceRequests(options.tracing, 'chat');
    for (const path of ['/v1/chat/completions', '/v1/messages']) app.use(path, chat);
    app.use('/v1/embeddings', traceRequests(options.tracing, 'embeddings'));
  }
  // Before the body limit, so a request without a valid key is refused before any of its body is read.
  if (options.callerKeys) app.use('/v1/*', callerAuth(options.callerKeys, { log }));
  app.use('/v1/*', limitBodySize(maxSize));
  const bounds = options.bounds ?? DEFAULT_REQUEST_BOUNDS;
  const access = options.access ?? (() => NO_ACCESS);
  if (options.callerKeys) {
    app.use('/v1/breakers', operatorOnly(access));
    app.use('/v1/pipelines', operatorOnly(access));
  }
  const admission = options.admission;
  const admitChat = admission && admissionGate(admission, admission.now, chatAsked);
  const targets = { gateway, catalog, bounds, adHocChains: options.adHocChains };
  addChatCompletions(app, targets, admitChat);
  addMessages(app, targets, admitChat);
  addEmbeddings(app, targets, admission && admissionGate(admission, admission.now, embeddingsAsked));
  addInfoRoutes(app, gateway, catalog);
  if (admission) addUsageRoute(app, admission.admission, log);
  if (options.observe) {
    addObserveRoutes(app, options.observe, { gateway, catalog, log, callerKeys: options.callerKeys, access });
  }
  if (options.jobs) {
    const jobAdmission = admission && {
      admission: admission.admission,
      catalog,
      quotaOf: admission.jobQuota ?? (async () => undefined),
    };
    app.route(
      '/v1/jobs',
      createJobsApp({ ...targets, jobs: options.jobs, log, access, admission: jobAdmission }),
    );
  }

  app.notFound((c) =>
    errorResponse(
      404,
      errorBody(
        `no route for ${c.req.method} ${new URL(c.req.url).pathname}`,
        'invalid_request_error',
        'not_found',
      ),
    ),
  );
  app.onError((error) => {
    log.error('unhandled error in the HTTP app', { error: error.name, detail: redactSecrets(error.message) });
    return errorResponse(500, errorBody('internal error', 'api_error', 'internal_error'));
  });
  return app;
}
