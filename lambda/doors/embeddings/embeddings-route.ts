import type { Hono, MiddlewareHandler } from 'hono';
import type { EmbeddingResult } from '../../core/embeddings/embedding-model.js';
import { chainUse } from '../../core/embeddings/embedding-space.js';
import type { ChainVariant } from '../../core/ledger/ledger-entry.js';
import type { RouteSuccess } from '../../core/router/route-types.js';
import type { AskedOf } from '../../http/admission-gate.js';
import { routeTarget, type TargetDeps, type TargetEnv } from '../../http/chat-admission.js';
import type { HttpEnv } from '../../http/http-env.js';
import { jsonBody } from '../../http/json-body.js';
import { errorBody, errorResponse } from '../../http/openai-errors.js';
import { routeHeaders } from '../../http/route-headers.js';
import { failureResponse } from '../openai-chat/chat-completions.js';
import { embeddingsBody } from './embeddings-format.js';
import { type EmbeddingsBody, embeddingInputs, embeddingsBodySchema } from './embeddings-request-schema.js';

/** An embeddings request reserves its input and no output (docs/design.md#admission). */
export const embeddingsAsked: AskedOf<EmbeddingsBody> = (body) => ({
  inputChars: JSON.stringify(body.input).length,
  maxTokens: 0,
});

/**
 * `POST /v1/embeddings`: OpenAI's embeddings API over a pipeline or chain whose models share one
 * embedding space (docs/concepts.md#embeddings). The same target resolution, admission, attempt
 * loop, ledger and evidence headers as chat; answered in OpenAI's shape, floats or base64.
 */
export function addEmbeddings(
  app: Hono<HttpEnv>,
  deps: TargetDeps,
  admit: MiddlewareHandler<TargetEnv, string, { out: { json: EmbeddingsBody } }> = (_c, next) => next(),
): void {
  app.post(
    '/v1/embeddings',
    jsonBody(embeddingsBodySchema, deps.bounds),
    routeTarget(deps, 'embeddings'),
    admit,
    async (c) => {
      const body = c.req.valid('json');
      const { target, requestId, clientRequestId } = c.var;
      const use = chainUse(target.tiers, (key) => deps.catalog.models.get(key)?.dimensions);
      const dimensions = use.ok && use.use.kind === 'embeddings' ? use.use.dimensions : 0;
      if (body.dimensions != null && body.dimensions !== dimensions) {
        const message = `dimensions: '${target.pipeline}' answers vectors of ${dimensions} dimensions, not ${body.dimensions}`;
        return errorResponse(400, errorBody(message, 'invalid_request_error', 'invalid_value', 'dimensions'));
      }
      const request = {
        input: embeddingInputs(body.input),
        dimensions,
        sendDimensions: body.dimensions != null,
      };
      const context = { requestId, clientRequestId, signal: c.req.raw.signal };
      const result = await deps.gateway.embed(target, request, context);
      if (!result.ok) return failureResponse(result, target.pipeline, target.variant);
      return embeddingsResponse(result, body.encoding_format ?? 'float', target.variant);
    },
  );
}

function embeddingsResponse(
  result: RouteSuccess<EmbeddingResult>,
  encoding: 'float' | 'base64',
  variant: ChainVariant | undefined,
): Response {
  return new Response(JSON.stringify(embeddingsBody(result.value, result.model, encoding)), {
    status: 200,
    headers: { ...routeHeaders(result, variant), 'content-type': 'application/json' },
  });
}
