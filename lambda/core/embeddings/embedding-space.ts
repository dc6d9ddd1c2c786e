/**
 * Embedding spaces (docs/concepts.md#embeddings): vectors of two models are comparable only when
 * both models declare the same `dimensions` AND are meant as one space by the operator who put
 * them in one chain. A chain of embedding models must agree on `dimensions`, and may not mix in
 * chat models; a chain of chat models serves chat only.
 */
import type { Tier } from '../dsl/types.js';

/** What a chain is for: chat, or embeddings of one size. */
export type ChainUse = { kind: 'chat' } | { kind: 'embeddings'; dimensions: number };

/** The use of a chain's models, or a problem naming them. `dimensionsOf(key)` is the model's `dimensions`. */
export function chainUse(
  tiers: readonly Tier[],
  dimensionsOf: (modelKey: string) => number | undefined,
): { ok: true; use: ChainUse } | { ok: false; problem: string } {
  const keys = tiers.flatMap((tier) => tier.members.map((m) => m.key));
  const embedding = keys.filter((key) => dimensionsOf(key) !== undefined);
  if (embedding.length === 0) return { ok: true, use: { kind: 'chat' } };
  const chat = keys.filter((key) => dimensionsOf(key) === undefined);
  if (chat.length > 0) {
    return {
      ok: false,
      problem: `mixes embedding models (${embedding.join(', ')}) with chat models (${chat.join(', ')})`,
    };
  }
  const sizes = new Set(embedding.map((key) => dimensionsOf(key)));
  if (sizes.size > 1) {
    const named = embedding.map((key) => `${key}: ${dimensionsOf(key)}`).join(', ');
    return {
      ok: false,
      problem: `mixes embedding spaces (${named} dimensions); a fallback must return vectors of the same space`,
    };
  }
  return {
    ok: true,
    use: { kind: 'embeddings', dimensions: dimensionsOf(embedding[0] as string) as number },
  };
}
