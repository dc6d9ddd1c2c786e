import { Hono } from 'hono';
import type { Catalog } from '../core/catalog/catalog.js';
import type { CorsConfig } from '../core/catalog/cors-config-schema.js';
import { DEFAULT_REQUEST_BOUNDS, type RequestBounds } from '../core/chat/request-bounds.js';
import { redactSecrets } from '../core/failures/redact-secrets.js';
import type { Gateway } from '../core/gateway/gateway.js';
import { type AdHocGate, createRequestLifecycle } from '../core/lifecycle/request-lifecycle.js';
import type { Logger } from '../core/logger.js';
import type { Clock } from '../core/time.js';
import type { RequestTracing } from '../core/tracing/request-spans.js';
import { DOORS } from '../doors/doors.js';
import type { Door, DoorAdmission, DoorDeps, JobsHttpOptions } from '../doors/shared/door.js';
import { retryAdviceMiddleware } from '../doors/shared/retry-advice.js';
import { type AccessPolicy, operatorOnly } from './access-policy.js';
import { limitBodySize } from './body-limit.js';
import { type CallerKeyCheck, callerAuth } from './caller-auth.js';
import { corsPolicy } from './cors-policy.js';
import type { HttpEnv } from './http-env.js';
import { addInfoRoutes } from './info-routes.js';
import { addObserveRoutes, type ObserveRoutes } from './observe-routes.js';
import { errorBody, errorResponse } from './openai-errors.js';
import { addOperatorRoutes, type OperatorConsoleOptions } from './operator-routes.js';
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
  callerKeys?: CallerKeyCheck | undefined;
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
  admission?: DoorAdmission | undefined;
  /** Which ad-hoc chains each caller may send, on every door and `/v1/jobs`. Absent: every one. */
  adHocChains?: AdHocGate | undefined;
  /** Spans per chat request and attempt (docs/design.md#traces). Absent: no spans, no cost. */
  tracing?: RequestTracing | undefined;
  /** The front doors to mount. Default {@link DOORS}: every door of `lambda/doors`. */
  doors?: readonly Door[] | undefined;
  /** `GET /metrics` and the status page (docs/operations.md#metrics). Absent: those routes 404. */
  observe?: ObserveRoutes | undefined;
  /** Browser origins allowed to call (the config's `cors`). Absent or none allowed: no CORS headers. */
  cors?: CorsConfig | undefined;
  /**
   * The operator console's endpoints `/v1/operator/*` on this override store
   * (docs/http-api.md#operator-console). Absent: they answer 404 naming `statusPage.console`.
   */
  operator?: OperatorConsoleOptions | undefined;
  /** The clock of the console's timed overrides. Default the system's. */
  clock?: Clock | undefined;
}

/**
 * The one HTTP app of Switchyard: `switchyard serve` runs it on node:http, the API Lambda runs it
 * behind API Gateway. It mounts the front doors (`lambda/doors`, docs/design.md#front-doors-and-the-request-lifecycle)
 * behind the shared layers (request ids, caller keys, body limit) and adds the info, usage and
 * observe routes. Every error is in the app's default (OpenAI) envelope, or in its door's own
 * (Anthropic's on `/v1/messages`); nothing answers with a stack trace.
 */
export function createHttpApp(options: HttpAppOptions): Hono<HttpEnv> {
  const { gateway, catalog, log } = options;
  const maxSize = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const app = new Hono<HttpEnv>();

  const doors = options.doors ?? DOORS;
  app.use('*', requestIdMiddleware);
  // First after the ids: a preflight carries no caller key and must not meet the 401 below.
  const corsMiddleware = corsPolicy(options.cors);
  if (corsMiddleware) app.use('*', corsMiddleware);
  // Outermost on its path, so every refusal below (keys, size, body, routing, admission) reads in the door's envelope.
  // Outside the envelopes, so the advice reads the final status of every door's answer.
  // `path/*` matches the path itself and its sub-routes (`/v1/jobs/{id}`): once each (on `path`
  // as well, it ran twice on every door request).
  for (const door of doors) app.use(`${door.path}/*`, retryAdviceMiddleware);
  // `path/*` matches the path itself and its sub-routes (`/v1/messages/count_tokens`, its 404s): once each.
  for (const door of doors) if (door.errors) app.use(`${door.path}/*`, door.errors);
  if (options.tracing) {
    for (const door of doors)
      if (door.operation) app.use(door.path, traceRequests(options.tracing, door.operation));
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
  const lifecycle = createRequestLifecycle({
    gateway,
    catalog,
    bounds,
    adHocChains: options.adHocChains,
    admission: admission?.admission,
  });
  const deps: DoorDeps = { gateway, catalog, bounds, log, lifecycle, admission, access, jobs: options.jobs };
  for (const door of doors) {
    const sub = door.app(deps);
    if (sub) app.route(door.path, sub);
  }
  if (options.operator) {
    addOperatorRoutes(app, options.operator, {
      catalog,
      clock: options.clock ?? { now: () => Date.now() },
      log,
      bounds,
      access,
    });
  } else {
    app.all('/v1/operator/*', () =>
      errorResponse(
        404,
        errorBody(
          'the operator console is not enabled: set statusPage.console: true in the config (or switchyard serve --console)',
          'invalid_request_error',
          'not_found',
        ),
      ),
    );
  }
  addInfoRoutes(app, gateway, catalog);
  if (admission) addUsageRoute(app, admission.admission, log);
  // Always added: with nothing to observe, /metrics and /status say how to turn them on.
  addObserveRoutes(app, options.observe ?? {}, {
    gateway,
    catalog,
    log,
    callerKeys: options.callerKeys,
    access,
  });

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
