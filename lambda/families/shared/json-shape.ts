import type { Usage } from '../../core/chat/chat-model.js';
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

/**
 * Token usage from a provider's usage object, read under its own field names; `undefined` unless
 * both counts are present.
 */
export function usageFrom(usage: unknown, inputField: string, outputField: string): Usage | undefined {
  if (!isRecord(usage)) return undefined;
  const inputTokens = tokenCount(usage[inputField]);
  const outputTokens = tokenCount(usage[outputField]);
  if (inputTokens === undefined || outputTokens === undefined) return undefined;
  return { inputTokens, outputTokens };
}
