/**
 * Per-process state keyed by pipeline: ad-hoc chains are callers' free text, so without a bound
 * every distinct chain would stay in memory for the life of the process.
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
