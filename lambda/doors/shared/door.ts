/**
 * The contract of a front door: a wire API (OpenAI chat completions, Anthropic Messages,
 * embeddings, jobs…) as one folder that reads its body into the neutral request, answers in its
 * own shapes and errors, and hands the app a Hono sub-app. The app mounts `DOORS`
 * (`doors/doors.ts`); a new door is a new folder and one line there.
 */
import type { Hono, MiddlewareHandler } from 'hono';
import type { Admission } from '../../core/admission/admission.js';
import type { SpendMeter } from '../../core/admission/spend-meter.js';
import type { Catalog } from '../../core/catalog/catalog.js';
import type { RequestBounds } from '../../core/chat/request-bounds.js';
import type { Gateway } from '../../core/gateway/gateway.js';
import type { JobQueue, JobStore } from '../../core/jobs/job-ports.js';
import type { JobQuota } from '../../core/jobs/job-quota.js';
import type { RequestLifecycle, RequestUse } from '../../core/lifecycle/request-lifecycle.js';
import type { Logger } from '../../core/logger.js';
import type { Clock } from '../../core/time.js';
import type { GenAiOperation } from '../../core/tracing/span-attributes.js';
import type { AccessPolicy } from '../../http/access-policy.js';
import type { HttpEnv } from '../../http/http-env.js';
import { admissionGate } from './admission-gate.js';
import type { DoorEnv } from './door-lifecycle.js';

/** Job store and queue for the jobs door. Absent from the app: no job routes (404). */
export interface JobsHttpOptions {
  store: JobStore;
  queue: JobQueue;
  /** Days a job record is kept (TTL): config `jobs.retentionDays`, whose schema holds the default. */
  retentionDays: number;
  clock?: Clock | undefined;
}

/** Admission as the doors use it. Absent: every request is admitted. */
export interface DoorAdmission {
  admission: Admission;
  meter: SpendMeter;
  now: () => number;
  /** The quota of a caller key's unfinished jobs (undefined key: authentication off). */
  jobQuota?: ((keyName: string | undefined) => Promise<JobQuota | undefined>) | undefined;
}

/** What the app hands every door. */
export interface DoorDeps {
  gateway: Gateway;
  catalog: Catalog;
  bounds: RequestBounds;
  log: Logger;
  /** The one request lifecycle (bounds, target, admission) over this app's gateway and config. */
  lifecycle: RequestLifecycle;
  admission?: DoorAdmission | undefined;
  /** Operator keys and schedule readers, read on every request. */
  access: () => AccessPolicy;
  jobs?: JobsHttpOptions | undefined;
}

/** One front door. */
export interface Door {
  /** Where the app mounts the door's sub-app, e.g. `/v1/chat/completions`. */
  path: string;
  /** The span operation of its requests (docs/design.md#traces). Absent: its requests open no span. */
  operation?: GenAiOperation | undefined;
  /**
   * Its error envelope, when it is not the app's default (OpenAI) one: middleware the app places
   * outermost on `path`, so every refusal on the way (keys, size, body, routing, admission, a 500)
   * reads in the door's shape.
   */
  errors?: MiddlewareHandler<HttpEnv> | undefined;
  /** Its sub-app (routes relative to `path`), or undefined when this deployment does not serve it. */
  app(deps: DoorDeps): Hono<HttpEnv> | undefined;
}

/** The lifecycle's admit step for a door that routes at once; a pass-through without admission. */
export function admitFor(deps: DoorDeps, use: RequestUse): MiddlewareHandler<DoorEnv> {
  const { admission } = deps;
  if (!admission) return (_c, next) => next();
  return admissionGate({ lifecycle: deps.lifecycle, ...admission }, use);
}
