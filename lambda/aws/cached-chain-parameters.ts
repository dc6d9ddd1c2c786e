import { setBounded } from '../core/bounded-map.js';
import type { ChainParameterStore } from '../core/catalog/chain-sources.js';
import type { Clock } from '../core/time.js';

/**
 * A local gateway's view of the operators' overrides (`switchyard serve --ssm`): each pipeline's
 * parameter read at most once per `cacheMs` (`aws.chainCacheMs`), so an edit takes effect within
 * that time, as in Lambda. While SSM fails, the last value read keeps serving; before any was read
 * the error reaches the chain resolver, which logs it and uses the next source.
 */
export function createCachedChainParameters(
  store: ChainParameterStore,
  cacheMs: number,
  clock: Clock,
): ChainParameterStore {
  const cache = new Map<string, { value: string | undefined; at: number }>();
  return {
    async get(pipeline) {
      const now = clock.now();
      const hit = cache.get(pipeline);
      if (hit && now - hit.at < cacheMs) return hit.value;
      try {
        const value = await store.get(pipeline);
        setBounded(cache, pipeline, { value, at: now });
        return value;
      } catch (error) {
        if (hit) return hit.value;
        throw error;
      }
    },
  };
}
