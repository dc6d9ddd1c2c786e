/**
 * The embeddings door, `POST /v1/embeddings`: OpenAI's embeddings API over a pipeline or chain
 * whose models share one embedding space (docs/concepts.md#embeddings). The same request
 * lifecycle, attempt loop, ledger and evidence headers as chat; answered in OpenAI's shape, floats
 * or base64, in the default envelope.
 */
import type { Hono } from 'hono';
import type { EmbeddingInput, EmbeddingResult } from '../../core/embeddings/embedding-model.js';
import { chainUse } from '../../core/embeddings/embedding-space.js';
import type { ChainVariant } from '../../core/ledger/ledger-entry.js';
import type { RouteSuccess } from '../../core/router/route-types.js';
import type { HttpEnv } from '../../http/http-env.js';
import { errorBody, errorResponse } from '../../http/openai-errors.js';
import { routeHeaders } from '../../http/route-headers.js';
import { failureResponse } from '../shared/chat-call.js';
import type { Door, DoorDeps } from '../shared/door.js';
import { routedDoorApp } from '../shared/routed-door.js';
import { embeddingsBody } from './embeddings-format.js';
import {
  type EmbeddingsBody,
  embeddingInputs,
  embeddingsBodySchema,
  embeddingsDemand,
} from './embeddings-request-schema.js';

/** The inputs so far: the vector length is the chain's, known once the target is. */
const neutral = (body: EmbeddingsBody) => ({
  model: body.model,
  demand: embeddingsDemand(body),
  request: embeddingInputs(body.input) as EmbeddingInput,
  streamed: false,
});

/** The sub-app: `POST /` under `/v1/embeddings`. */
export function createEmbeddingsApp(deps: DoorDeps): Hono<HttpEnv> {
  return routedDoorApp(deps, {
    schema: embeddingsBodySchema,
    use: 'embeddings',
    read: neutral,
    async answer({ body, neutral: read, target, requestId, clientRequestId, signal }) {
      const use = chainUse(target.tiers, (key) => deps.catalog.models.get(key)?.dimensions);
      const dimensions = use.ok && use.use.kind === 'embeddings' ? use.use.dimensions : 0;
      if (body.dimensions != null && body.dimensions !== dimensions) {
        const message = `dimensions: '${target.pipeline}' answers vectors of ${dimensions} dimensions, not ${body.dimensions}`;
        return errorResponse(400, errorBody(message, 'invalid_request_error', 'invalid_value', 'dimensions'));
      }
      const request = { input: read.request, dimensions, sendDimensions: body.dimensions != null };
      const result = await deps.gateway.embed(target, request, { requestId, clientRequestId, signal });
      if (!result.ok) return failureResponse(result, target.pipeline, target.variant);
      return embeddingsResponse(result, body.encoding_format ?? 'float', target.variant);
    },
  });
}

/** `POST /v1/embeddings`, traced as `embeddings`, in the default envelope. */
export const embeddingsDoor: Door = {
  path: '/v1/embeddings',
  operation: 'embeddings',
  app: createEmbeddingsApp,
};

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
