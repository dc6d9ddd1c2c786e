import type { Price } from '../ledger/cost.js';
import { pickWeighted } from './pick-weighted.js';
import { type RouteCandidate, routeCandidates, type SelectionStrategy } from './selection-strategy.js';

/**
 * One number to compare routes by, in US$ per million tokens: input plus output price. A route
 * without a price is `Infinity`: any priced route comes first.
 */
export function blendedPrice(price: Price | undefined): number {
  return price ? price.inputPerMTok + price.outputPerMTok : Number.POSITIVE_INFINITY;
}

/**
 * `cost` (docs/concepts.md#selection-strategies): the cheapest route (blended price) among those
 * whose recent success rate is at least `minSuccessRate`; routes equally cheap are drawn by weight
 * (one draw). When no route meets the rate, the one with the highest rate, then the cheapest, then
 * the first. `minSuccessRate` is 0–1 (default 0.9, set by the pipeline's `selection`).
 */
export function costStrategy(minSuccessRate: number): SelectionStrategy {
  return {
    name: 'cost',
    choose(members, context) {
      const routes = routeCandidates(members);
      if (routes.length === 0) return undefined;
      const priceOf = (r: RouteCandidate) => blendedPrice(context.price(r.route));
      const rateOf = (r: RouteCandidate) => context.signal(r.route).successRate;
      const healthy = routes.filter((r) => rateOf(r) >= minSuccessRate);
      let chosen: RouteCandidate | undefined;
      if (healthy.length > 0) {
        const cheapest = Math.min(...healthy.map(priceOf));
        chosen = pickWeighted(
          healthy.filter((r) => priceOf(r) === cheapest),
          context.random,
        );
      } else {
        chosen = [...routes].sort((a, b) => rateOf(b) - rateOf(a) || priceOf(a) - priceOf(b))[0];
      }
      if (!chosen) return undefined;
      const rival = routes.filter((r) => r !== chosen).sort((a, b) => priceOf(a) - priceOf(b))[0];
      return {
        model: chosen.model,
        route: chosen.route,
        decision: {
          strategy: 'cost',
          score: priceOf(chosen),
          ...(rival ? { rival: { route: rival.route, score: priceOf(rival) } } : {}),
        },
      };
    },
  };
}
