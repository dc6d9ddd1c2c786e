/**
 * The operator console's endpoints (docs/http-api.md#operator-console): `GET
 * /v1/operator/pipelines/{pipeline}` explains a pipeline; `POST …/{action}` checks a chain or
 * changes the override. Behind the caller keys and {@link operatorKeyRequired}; every change is
 * logged with the operator key's name and the reason (never the key).
 */
import type { Context, Hono } from 'hono';
import * as z from 'zod';
import type { Catalog } from '../core/catalog/catalog.js';
import type { RequestBounds } from '../core/chat/request-bounds.js';
import type { Logger } from '../core/logger.js';
import type { Clock } from '../core/time.js';
import type { ChainOverrideStore } from '../overrides/chain-override-store.js';
import type { ChangeAuthor } from '../overrides/change-note.js';
import { byOperator, type ChangeResult, createOverrideActions } from '../overrides/override-actions.js';
import { explainPipeline } from '../overrides/override-explain.js';
import { OverrideRefusedError } from '../overrides/override-refused-error.js';
import { type AccessPolicy, operatorKeyRequired } from './access-policy.js';
import type { HttpEnv } from './http-env.js';
import { jsonBody } from './json-body.js';
import { errorBody, errorResponse } from './openai-errors.js';

/** What the console writes to, and how soon the gateway applies it. */
export interface OperatorConsoleOptions {
  store: ChainOverrideStore;
  /** Where the overrides are, for people: `SSM /switchyard/chains`, `local store .switchyard/overrides.db`. */
  where: string;
  /** The gateway's environment: its `MODEL_<P>` wins over any override. */
  env: Readonly<Record<string, string | undefined>>;
  /** How long running gateways take to apply a write, in ms (`aws.chainCacheMs`; 0 locally). */
  appliesWithinMs: number;
}

const chain = z.string().trim().min(1, 'must name a chain').max(2_000);
/** One line, said by a person: kept in the override's history. */
const reason = z
  .string()
  .trim()
  .min(3, 'say why, in a few words (kept in the override history)')
  .max(300)
  .regex(/^[^\p{Cc}]*$/u, 'must be one line of text');

const checkSchema = z.strictObject({ chain });
const setSchema = z.strictObject({
  chain,
  reason,
  /** A duration (`2h`, `90m`): the override ends that long from now. */
  for: z.string().trim().min(1).max(20).optional(),
  /** ISO 8601 with a zone: the override ends then. */
  until: z.string().trim().min(1).max(40).optional(),
  /** Ignore breaker openings of the chain's routes while it holds; needs `for` or `until`. */
  pin: z.boolean().default(false),
});
const canarySchema = z.strictObject({
  chain,
  reason,
  percent: z.number().gt(0).lt(100),
  autoAbort: z.boolean().default(false),
});
const reasonSchema = z.strictObject({ reason });
const rollbackSchema = z.strictObject({ reason, toVersion: z.int().positive().optional() });

const PIPELINE = '/v1/operator/pipelines/:pipeline';

/** Adds the console's routes; the caller keys are already checked on `/v1/*`. */
export function addOperatorRoutes(
  app: Hono<HttpEnv>,
  options: OperatorConsoleOptions,
  deps: { catalog: Catalog; clock: Clock; log: Logger; bounds: RequestBounds; access: () => AccessPolicy },
): void {
  const actions = createOverrideActions({ catalog: deps.catalog, store: options.store, clock: deps.clock });
  const explain = (pipeline: string) => explainPipeline(pipeline, { ...deps, ...options }, deps.clock.now());
  app.use('/v1/operator/*', operatorKeyRequired(deps.access));

  const known = (c: Context<HttpEnv>) => {
    const pipeline = c.req.param('pipeline') ?? '';
    return deps.catalog.hasPipeline(pipeline) ? pipeline : undefined;
  };
  const unknown = (c: Context<HttpEnv>) =>
    errorResponse(
      404,
      errorBody(
        `the config has no pipeline '${c.req.param('pipeline')}'`,
        'invalid_request_error',
        'pipeline_not_found',
      ),
    );
  const author = (c: Context<HttpEnv>, why: string): ChangeAuthor => ({
    who: c.get('callerKeyName') ?? '',
    why,
  });
  /** Runs a change: 200 with what it did and the pipeline explained anew; a refusal 400/409; a store failure 503. */
  const change = async (
    c: Context<HttpEnv>,
    action: string,
    why: string,
    run: (pipeline: string) => Promise<ChangeResult>,
  ) => {
    const pipeline = known(c);
    if (!pipeline) return unknown(c);
    try {
      const result = await run(pipeline);
      deps.log.info('operator override changed', {
        pipeline,
        action,
        who: c.get('callerKeyName'),
        why,
        version: result.version,
        done: result.done,
      });
      const within = options.appliesWithinMs;
      const applies = within > 0 ? `running gateways apply it within ${within / 1000} s` : 'in force now';
      return c.json({ ...result, applies, explanation: await explain(pipeline) });
    } catch (error) {
      return refusal(error, deps.log, pipeline, action);
    }
  };

  app.get(PIPELINE, async (c) => {
    const pipeline = known(c);
    if (!pipeline) return unknown(c);
    try {
      c.header('cache-control', 'no-store');
      return c.json(await explain(pipeline));
    } catch (error) {
      return refusal(error, deps.log, pipeline, 'explain');
    }
  });
  app.post(`${PIPELINE}/check`, jsonBody(checkSchema, deps.bounds), (c) => {
    const pipeline = known(c);
    if (!pipeline) return unknown(c);
    try {
      return c.json(actions.check(pipeline, c.req.valid('json').chain));
    } catch (error) {
      return refusal(error, deps.log, pipeline, 'check');
    }
  });
  app.post(`${PIPELINE}/set`, jsonBody(setSchema, deps.bounds), (c) => {
    const body = c.req.valid('json');
    return change(c, body.pin ? 'pin' : 'set', body.reason, (p) =>
      actions.set(p, body, author(c, body.reason)),
    );
  });
  app.post(`${PIPELINE}/canary`, jsonBody(canarySchema, deps.bounds), (c) => {
    const body = c.req.valid('json');
    return change(c, 'canary', body.reason, (p) => actions.canary(p, body, author(c, body.reason)));
  });
  for (const action of ['promote', 'abort', 'clear'] as const) {
    app.post(`${PIPELINE}/${action}`, jsonBody(reasonSchema, deps.bounds), (c) => {
      const { reason: why } = c.req.valid('json');
      return change(c, action, why, (p) =>
        action === 'clear' ? actions.clear(p) : actions[action](p, byOperator(author(c, why))),
      );
    });
  }
  app.post(`${PIPELINE}/rollback`, jsonBody(rollbackSchema, deps.bounds), (c) => {
    const body = c.req.valid('json');
    return change(c, 'rollback', body.reason, (p) =>
      actions.rollback(p, body.toVersion, byOperator(author(c, body.reason))),
    );
  });
}

/** A refusal names what is wrong (400, or 409 when the override's state is in the way); a store failure is 503. */
function refusal(error: unknown, log: Logger, pipeline: string, action: string): Response {
  if (error instanceof OverrideRefusedError)
    return errorResponse(
      error.conflict ? 409 : 400,
      errorBody(
        error.message,
        'invalid_request_error',
        error.conflict ? 'override_conflict' : 'invalid_value',
      ),
    );
  log.warn('operator override store failed', {
    pipeline,
    action,
    error: error instanceof Error ? error.name : 'unknown',
  });
  return errorResponse(
    503,
    errorBody(
      'the override store failed; explain the pipeline again to see whether the change was written',
      'api_error',
      'service_unavailable',
    ),
    { 'retry-after': '1' },
  );
}
