/**
 * The request lifecycle (`core/lifecycle`) as Hono middleware, shared by every front door: the
 * door reads its body into a {@link NeutralBody} (`neutralBody`), then `withinBounds`,
 * `resolvesTarget` and the admission gate run the lifecycle's steps on that neutral request and
 * answer a refusal themselves, in the app's default (OpenAI) envelope; a door with another
 * envelope rewrites it on its path.
 */
import type { MiddlewareHandler } from 'hono';
import type { Target } from '../../core/gateway/target.js';
import type { RequestDemand } from '../../core/lifecycle/request-demand.js';
import type {
  LifecycleCall,
  LifecycleRefusal,
  RequestLifecycle,
  RequestUse,
} from '../../core/lifecycle/request-lifecycle.js';
import type { HttpEnv, HttpVariables } from '../../http/http-env.js';
import { errorBody, errorResponse } from '../../http/openai-errors.js';
import { refusalResponse } from './admission-refusal.js';

/** A validated body as its door read it into the neutral request. */
export interface NeutralBody<R = unknown> {
  /** The body's pipeline or chain (`model`), if it named one. */
  model: string | undefined;
  demand: RequestDemand;
  /** The provider-neutral request (or, for a door that completes it once the target is known, its part so far). */
  request: R;
  /** Answered as a stream: its reservation settles with its request line, after the handler returned. */
  streamed: boolean;
}

/** The environment once a body is read: `c.var.neutral`, and `c.var.target` after {@link resolvesTarget}. */
export interface DoorEnv<R = unknown> extends HttpEnv {
  Variables: HttpVariables & { neutral: NeutralBody<R>; target: Target };
}

/** The lifecycle's view of the request in context `c`. */
export function lifecycleCall(
  c: {
    get<K extends keyof DoorEnv['Variables']>(key: K): DoorEnv['Variables'][K];
    req: { header(name: string): string | undefined };
  },
  use: RequestUse,
): LifecycleCall {
  // `c.get`, not `c.var`: Hono's `c.var` copies every variable into a new object on each read.
  const neutral = c.get('neutral');
  return {
    model: neutral.model,
    headerPipeline: c.req.header('x-switchyard-pipeline'),
    keyName: c.get('callerKeyName'),
    use,
    demand: neutral.demand,
  };
}

/** Reads the validated body (`c.req.valid('json')`) into `c.var.neutral` with the door's conversion. */
export function neutralBody<B, R>(
  convert: (body: B) => NeutralBody<R>,
): MiddlewareHandler<DoorEnv<R>, string, { out: { json: B } }> {
  return async (c, next) => {
    c.set('neutral', convert(c.req.valid('json')));
    await next();
  };
}

/**
 * A lifecycle refusal in the OpenAI envelope: 400 `limit_exceeded` naming the field over a bound,
 * 404 `model_not_found`, 403 `ad_hoc_chain_refused` naming the setting's field `model`, 400
 * `wrong_model_kind` (embedding models on a chat door and back, a chain that mixes embedding
 * spaces, docs/concepts.md#embeddings), and admission's own 429/503 with `Retry-After`.
 */
export function lifecycleRefusalResponse(refusal: LifecycleRefusal, now: number): Response {
  switch (refusal.kind) {
    case 'over_bound': {
      const { message, param } = refusal.violation;
      return errorResponse(400, errorBody(message, 'invalid_request_error', 'limit_exceeded', param));
    }
    case 'unknown_target':
      return errorResponse(
        404,
        errorBody(refusal.message, 'invalid_request_error', 'model_not_found', refusal.param),
      );
    case 'ad_hoc_refused':
      return errorResponse(
        403,
        errorBody(refusal.message, 'invalid_request_error', 'ad_hoc_chain_refused', 'model'),
      );
    case 'wrong_use':
      return errorResponse(
        400,
        errorBody(refusal.message, 'invalid_request_error', 'wrong_model_kind', 'model'),
      );
    case 'admission':
      return refusalResponse(refusal.refusal, now);
  }
}

/** The bounds that need no target (the number of messages): 400 `limit_exceeded` naming `messages`. */
export function withinBounds(lifecycle: RequestLifecycle, use: RequestUse): MiddlewareHandler<DoorEnv> {
  return async (c, next) => {
    const refusal = lifecycle.bounds(lifecycleCall(c, use));
    if (refusal) return lifecycleRefusalResponse(refusal, Date.now());
    await next();
  };
}

/**
 * Resolves the pipeline or chain (`model`, or the `x-switchyard-pipeline` header) into
 * `c.var.target`, or answers why it cannot serve this caller and request.
 */
export function resolvesTarget(lifecycle: RequestLifecycle, use: RequestUse): MiddlewareHandler<DoorEnv> {
  return async (c, next) => {
    const target = await lifecycle.target(lifecycleCall(c, use));
    if (!target.ok) return lifecycleRefusalResponse(target.refusal, Date.now());
    c.set('target', target.value);
    await next();
  };
}
