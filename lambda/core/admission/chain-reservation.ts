import type { Catalog } from '../catalog/catalog.js';
import type { Tier } from '../dsl/types.js';
import { dearestPrice, type ReservationInput } from './reservation-estimate.js';

/** What a chat request asks that bears on its worst case. */
export interface AskedChat {
  /** Characters of its messages (their JSON text). */
  inputChars: number;
  /** The output bound the caller set (its door's field), when it set one. */
  maxTokens: number | undefined;
}

/**
 * The reservation input of a request over `tiers`: its own `max_tokens`, else the largest
 * `maxOutputTokens` of the chain's models (`limits.maxOutputTokens` for a model without one), and
 * the dearest price of any route of those models — any of them may answer.
 */
export function chainReservation(
  asked: AskedChat,
  tiers: readonly Tier[],
  catalog: Catalog,
): ReservationInput {
  const models = tiers.flatMap((t) => t.members).flatMap((m) => catalog.models.get(m.key) ?? []);
  const outputLimit = (limit: number | undefined) => limit ?? catalog.config.limits.maxOutputTokens;
  const limits = models.map((m) => outputLimit(m.maxOutputTokens));
  return {
    inputChars: asked.inputChars,
    maxOutputTokens: asked.maxTokens ?? (limits.length > 0 ? Math.max(...limits) : outputLimit(undefined)),
    price: dearestPrice(models.flatMap((m) => m.routes.map((r) => r.price))),
  };
}
