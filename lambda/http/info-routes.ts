import type { Hono } from 'hono';
import type { Catalog } from '../core/catalog/catalog.js';
import type { Gateway } from '../core/gateway/gateway.js';
import type { Target } from '../core/gateway/target.js';
import type { HttpEnv } from './http-env.js';
import { errorBody, errorResponse } from './openai-errors.js';

/** The OpenAI model list: pipelines first, then every catalog model key. */
function modelList(catalog: Catalog) {
  return {
    object: 'list',
    data: [
      ...catalog.pipelines.map((id) => ({
        id,
        object: 'model',
        created: 0,
        owned_by: 'switchyard-pipeline',
      })),
      ...[...catalog.models.values()].map((m) => ({
        id: m.key,
        object: 'model',
        created: 0,
        owned_by: m.providerName,
      })),
    ],
  };
}

/** One pipeline with its effective chain, where the chain came from, and its policy. */
function pipelineView(t: Target) {
  return {
    name: t.pipeline,
    chain: t.chain,
    source: t.source,
    tiers: t.tiers.map((tier) => tier.members.map((m) => m.key)),
    warnings: t.warnings.map((w) => w.message),
    policy: { ...t.policy.route, breaker: t.policy.breaker },
    // docs/design.md#timed-overrides-and-canaries: a timed override's end, a pin, a canary.
    until: t.until === undefined ? null : new Date(t.until).toISOString(),
    pinned: t.pinned === true,
    canary: t.canary
      ? {
          chain: t.canary.chain,
          tiers: t.canary.tiers.map((tier) => tier.members.map((m) => m.key)),
          percent: t.canary.percent,
          since: t.canary.since,
          autoAbort: t.canary.autoAbort,
        }
      : null,
  };
}

/** `GET /v1/models`, `/v1/pipelines`, `/v1/breakers` and `/healthz`. */
export function addInfoRoutes(app: Hono<HttpEnv>, gateway: Gateway, catalog: Catalog): void {
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/v1/models', (c) => c.json(modelList(catalog)));
  app.get('/v1/pipelines', async (c) =>
    c.json({ object: 'list', data: (await gateway.pipelines()).map(pipelineView) }),
  );

  app.get('/v1/breakers', async (c) => {
    const pipeline = c.req.query('pipeline');
    const data = await gateway.breakers(pipeline || undefined);
    if (data === undefined) {
      return errorResponse(
        404,
        errorBody(`unknown pipeline '${pipeline}'`, 'invalid_request_error', 'model_not_found', 'pipeline'),
      );
    }
    return c.json({ object: 'list', data });
  });
}
