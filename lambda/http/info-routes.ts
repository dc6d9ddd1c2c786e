import type { Hono } from 'hono';
import type { Catalog } from '../core/catalog/catalog.js';
import { echoable } from '../core/chat/request-bounds.js';
import type { Gateway } from '../core/gateway/gateway.js';
import type { Target } from '../core/gateway/target.js';
import type { HttpEnv } from './http-env.js';
import { errorBody, errorResponse } from './openai-errors.js';

/** One OpenAI model object: a pipeline is owned by `switchyard-pipeline`, a model key by its provider. */
const modelObject = (id: string, ownedBy: string) => ({ id, object: 'model', created: 0, owned_by: ownedBy });

/** The OpenAI model list: pipelines first, then every catalog model key. */
function modelList(catalog: Catalog) {
  return {
    object: 'list',
    data: [
      ...catalog.pipelines.map((id) => modelObject(id, 'switchyard-pipeline')),
      ...[...catalog.models.values()].map((m) => modelObject(m.key, m.providerName)),
    ],
  };
}

/**
 * `GET /v1/models/{id}` (the SDKs' `models.retrieve`): the pipeline or model key as the list shows
 * it (a pipeline first, as the list orders them), or a 404 `model_not_found` naming the id.
 */
function retrievedModel(catalog: Catalog, id: string): Response {
  if (catalog.hasPipeline(id)) return Response.json(modelObject(id, 'switchyard-pipeline'));
  const model = catalog.models.get(id);
  if (model) return Response.json(modelObject(model.key, model.providerName));
  const shown = echoable(id, catalog.config.limits.maxEchoChars);
  return errorResponse(
    404,
    errorBody(
      `model '${shown}' not found: GET /v1/models lists the pipelines and model keys`,
      'invalid_request_error',
      'model_not_found',
      'model',
    ),
  );
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

/** `GET /v1/models`, `/v1/models/{id}`, `/v1/pipelines`, `/v1/breakers` and `/healthz`. */
export function addInfoRoutes(app: Hono<HttpEnv>, gateway: Gateway, catalog: Catalog): void {
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/v1/models', (c) => c.json(modelList(catalog)));
  // `{.+}`: an id may hold a slash; the path segment arrives percent-decoded.
  app.get('/v1/models/:id{.+}', (c) => retrievedModel(catalog, c.req.param('id')));
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
