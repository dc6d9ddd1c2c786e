/**
 * What a chat-shaped body (`POST /v1/chat/completions`, `POST /v1/jobs`) must pass before anything
 * runs, as middleware placed after `jsonBody`: a bounded number of messages, a routable target,
 * and output tokens the target's models allow. Each answers the caller itself when the body fails.
 */
import type { MiddlewareHandler } from 'hono';
import type { AdHocRefusal } from '../core/catalog/ad-hoc-chains.js';
import type { Catalog } from '../core/catalog/catalog.js';
import {
  type BoundViolation,
  checkMessageCount,
  checkOutputTokens,
  echoable,
  type RequestBounds,
} from '../core/chat/request-bounds.js';
import { chainUse } from '../core/embeddings/embedding-space.js';
import type { Gateway } from '../core/gateway/gateway.js';
import type { Target } from '../core/gateway/target.js';
import type { HttpEnv, HttpVariables } from './http-env.js';
import { errorBody, errorResponse } from './openai-errors.js';

/** The environment after {@link routeTarget}: `c.var.target` is what the request routes over. */
export interface TargetEnv extends HttpEnv {
  Variables: HttpVariables & { target: Target };
}

/** The body fields the checks read: both front doors' bodies have them (Messages has no `max_completion_tokens`). */
export interface SharedBody {
  model?: string | undefined;
  messages: readonly unknown[];
  max_tokens?: number | null | undefined;
  max_completion_tokens?: number | null | undefined;
}

/** The fields of the validated body a check reads. */
type BodyInput<K extends keyof SharedBody> = { out: { json: Pick<SharedBody, K> } };

/** What `routeTarget` reads of a body: the target, and output tokens where the route has them. */
type RoutedInput = {
  out: {
    json: { model?: string | undefined } & Partial<Pick<SharedBody, 'max_tokens' | 'max_completion_tokens'>>;
  };
};

/** What a route serves: chat (completions, jobs) or embeddings; a target must suit it. */
export type RouteUse = 'chat' | 'embeddings';

/** Why this caller (its key name; undefined while authentication is off) may not run this target, or undefined. */
export type AdHocGate = (keyName: string | undefined, target: Target) => Promise<AdHocRefusal | undefined>;

/** What {@link routeTarget} needs from the app. */
export interface TargetDeps {
  gateway: Gateway;
  catalog: Catalog;
  bounds: RequestBounds;
  /** Which ad-hoc chains each caller may send (`admission.adHocChains`). Absent: every one. */
  adHocChains?: AdHocGate | undefined;
}

const overBound = (violation: BoundViolation): Response =>
  errorResponse(
    400,
    errorBody(violation.message, 'invalid_request_error', 'limit_exceeded', violation.param),
  );

/** 400 `limit_exceeded` naming `messages` when the body holds more than `bounds.maxMessages`. */
export function withinMessageLimit(
  bounds: RequestBounds,
): MiddlewareHandler<HttpEnv, string, BodyInput<'messages'>> {
  return async (c, next) => {
    const violation = checkMessageCount(c.req.valid('json'), bounds);
    if (violation) return overBound(violation);
    await next();
  };
}

/**
 * Resolves the pipeline or chain (`model`, or the `x-switchyard-pipeline` header) into
 * `c.var.target`: 404 `model_not_found` when it names nothing routable, 403 `ad_hoc_chain_refused`
 * naming the setting when the caller may not send this ad-hoc chain, 400 `wrong_model_kind`
 * when its models do not serve this route (embedding models on a chat route and back, or a chain
 * that mixes embedding spaces, docs/concepts.md#embeddings), 400 `limit_exceeded` naming the
 * token field when it asks more than the chain's models allow.
 */
export function routeTarget(
  deps: TargetDeps,
  serves: RouteUse = 'chat',
): MiddlewareHandler<TargetEnv, string, RoutedInput> {
  const outputLimit = (key: string) => deps.catalog.models.get(key)?.maxOutputTokens;
  return async (c, next) => {
    const body = c.req.valid('json');
    const target = await deps.gateway.resolveTarget(body.model, c.req.header('x-switchyard-pipeline'));
    if (target.kind === 'unknown') {
      return errorResponse(
        404,
        errorBody(target.message, 'invalid_request_error', 'model_not_found', target.param),
      );
    }
    const refused = await deps.adHocChains?.(c.var.callerKeyName, target);
    if (refused)
      return errorResponse(
        403,
        errorBody(refused.message, 'invalid_request_error', 'ad_hoc_chain_refused', 'model'),
      );
    const unsuited = useProblem(deps.catalog, target, serves);
    if (unsuited)
      return errorResponse(400, errorBody(unsuited, 'invalid_request_error', 'wrong_model_kind', 'model'));
    const violation = checkOutputTokens(body, target.tiers, outputLimit, deps.bounds);
    if (violation) return overBound(violation);
    c.set('target', target);
    await next();
  };
}

/** Why the target's chain cannot serve this route, or undefined when it can. */
function useProblem(catalog: Catalog, target: Target, serves: RouteUse): string | undefined {
  const use = chainUse(target.tiers, (key) => catalog.models.get(key)?.dimensions);
  const chain = `'${echoable(target.pipeline, catalog.config.limits.maxEchoChars)}'`;
  if (!use.ok) return `${chain} ${use.problem}`;
  if (use.use.kind === serves) return undefined;
  return serves === 'chat'
    ? `${chain} names embedding models; send it to POST /v1/embeddings`
    : `${chain} names chat models; POST /v1/embeddings needs models with dimensions`;
}
