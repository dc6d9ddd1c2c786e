/**
 * Per-process state keyed by pipeline. Its keys are configured pipelines, the shared `adhoc` and
 * one per override variable (`stateScope`, `stateScopeIn`), so callers cannot add keys; the bound
 * is a backstop for any path that still would, at the price of forgetting the oldest.
 */
export const PIPELINE_STATE_LIMIT = 10_000;

/** Sets `key`; past `limit` keys the oldest entry is forgotten (insertion order). */
export function setBounded<K, V>(
  map: Map<K, V>,
  key: K,
  value: V,
  limit: number = PIPELINE_STATE_LIMIT,
): void {
  if (!map.has(key) && map.size >= limit) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
  map.set(key, value);
}
