import type { EmbeddingRequest, EmbeddingResult } from '../embeddings/embedding-model.js';
import { ProviderError } from '../failures/provider-error.js';
import type { RouteRequest, RouteResult, RouterDeps } from './route-types.js';
import { runAttempts } from './run-attempts.js';

/**
 * Routes an embeddings request through the same attempt loop as chat (retry, fallback,
 * breakers, ledger); the ledger is complete when it resolves. The chain's models share one
 * embedding space (`embedding-space.ts`), so any of them may answer.
 */
export async function routeEmbed(
  request: RouteRequest,
  deps: RouterDeps,
  embedding: EmbeddingRequest,
): Promise<RouteResult<EmbeddingResult>> {
  const result = await runAttempts(request, deps, (model, options) => {
    if (!model.embed) {
      throw new ProviderError({
        provider: model.provider,
        model: model.key,
        failureClass: 'invalid_request',
        message: `model '${model.key}' does not serve embeddings`,
      });
    }
    return model.embed(embedding, { ...options, callerInput: embedding });
  });
  if (result.ok) await result.settle({ usage: result.value.usage });
  return result;
}
