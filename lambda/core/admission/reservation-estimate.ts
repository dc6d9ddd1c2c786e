import { estimateTokens } from '../chat/token-estimate.js';
import type { Price } from '../ledger/cost.js';
import { toNano } from './limit-plan.js';

/** What a reservation is computed from, all known before the first attempt. */
export interface ReservationInput {
  /** Characters of the request's messages (their JSON text). */
  inputChars: number;
  /** The most output tokens any attempt may produce: `max_tokens`, else the chain's largest model limit. */
  maxOutputTokens: number;
  /** The dearest input and output price of the chain's routes; undefined when none has a price. */
  price: Price | undefined;
}

/** A request's worst case: tokens for the token limits, nano-US$ for the spend limits. */
export interface Reservation {
  tokens: number;
  costNano: number;
}

/**
 * The worst case of one attempt: the input estimated at `charsPerToken` characters a token plus
 * every output token allowed, at the chain's dearest prices. A fallback's further attempts are
 * not reserved; the settlement counts them (docs/concepts.md#how-a-reservation-works).
 */
export function estimateReservation(input: ReservationInput, charsPerToken: number): Reservation {
  const inputTokens = estimateTokens(input.inputChars, charsPerToken);
  const tokens = inputTokens + input.maxOutputTokens;
  if (!input.price) return { tokens, costNano: 0 };
  const usd =
    (inputTokens * input.price.inputPerMTok + input.maxOutputTokens * input.price.outputPerMTok) / 1_000_000;
  return { tokens, costNano: toNano(usd) };
}

/**
 * The dearest input and output price among `prices` (each may be undefined), or undefined. An
 * input token may be a cache write and an output token reasoning, so each kind's own price counts
 * towards the worst case of the total it is part of.
 */
export function dearestPrice(prices: readonly (Price | undefined)[]): Price | undefined {
  let worst: Price | undefined;
  for (const p of prices) {
    if (!p) continue;
    worst = {
      inputPerMTok: Math.max(worst?.inputPerMTok ?? 0, p.inputPerMTok, p.cacheWritePerMTok ?? 0),
      outputPerMTok: Math.max(worst?.outputPerMTok ?? 0, p.outputPerMTok, p.reasoningPerMTok ?? 0),
    };
  }
  return worst;
}
