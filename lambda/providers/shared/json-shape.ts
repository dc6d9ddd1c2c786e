/** A plain JSON object, as parsed from an upstream body. */
export type JsonRecord = Record<string, unknown>;

/** True for a non-null, non-array object: the only shape an upstream message or chunk may have. */
export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A finite, non-negative number, else `undefined` (usage counters from untrusted bodies). */
export function tokenCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}
