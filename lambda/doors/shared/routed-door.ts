/**
 * The sub-app of a door that routes each request at once (chat completions, Messages,
 * embeddings): `POST /` reads the body with the door's schema, reads it into the neutral request,
 * runs the request lifecycle (bounds → target → admit) and hands the admitted request to the
 * door's `answer`, which routes it and renders the answer in the door's shape.
 */
import { Hono } from 'hono';
import type * as z from 'zod';
import type { Target } from '../../core/gateway/target.js';
import type { RequestUse } from '../../core/lifecycle/request-lifecycle.js';
import type { HttpEnv } from '../../http/http-env.js';
import { jsonBody } from '../../http/json-body.js';
import { admitFor, type DoorDeps } from './door.js';
import { type NeutralBody, neutralBody, resolvesTarget, withinBounds } from './door-lifecycle.js';

/** One admitted request, as the door's `answer` gets it. */
export interface AdmittedRequest<B, R> {
  /** The validated body, for the fields only the door reads (`stream_options`, `encoding_format`…). */
  body: B;
  neutral: NeutralBody<R>;
  target: Target;
  /** The gateway's request id (the ledger's `requestId`). */
  requestId: string;
  /** The caller's `x-request-id`, when it sent a usable one. */
  clientRequestId: string | undefined;
  /** The request's signal: aborts when the caller goes away. */
  signal: AbortSignal;
}

/** What a routed door is made of. */
export interface RoutedDoorSpec<S extends z.ZodType<object>, R> {
  /** Its body schema (zod at the edge: a 400 names the field). */
  schema: S;
  /** What its requests are for: its target's models must serve it. */
  use: RequestUse;
  /** The body read into the neutral request and its demand. */
  read(body: z.output<S>): NeutralBody<R>;
  /** Routes an admitted request and renders the answer. */
  answer(request: AdmittedRequest<z.output<S>, R>): Promise<Response> | Response;
}

/** The door's sub-app: `POST /` under the door's path. */
export function routedDoorApp<S extends z.ZodType<object>, R>(
  deps: DoorDeps,
  spec: RoutedDoorSpec<S, R>,
): Hono<HttpEnv> {
  const door = new Hono<HttpEnv>();
  door.post(
    '/',
    jsonBody(spec.schema, deps.bounds),
    neutralBody<z.output<S>, R>((body) => spec.read(body)),
    withinBounds(deps.lifecycle, spec.use),
    resolvesTarget(deps.lifecycle, spec.use),
    admitFor(deps, spec.use),
    (c) =>
      spec.answer({
        body: c.req.valid('json'),
        neutral: c.get('neutral'),
        target: c.get('target'),
        requestId: c.get('requestId'),
        clientRequestId: c.get('clientRequestId'),
        signal: c.req.raw.signal,
      }),
  );
  return door;
}
