import type { RouteSignal } from './route-signals.js';
import {
  type RouteCandidate,
  routeCandidates,
  type SelectionContext,
  type SelectionStrategy,
} from './selection-strategy.js';

/** Latency in ms assumed when no candidate has a sample yet: only load, success and weight then decide. */
const NO_LATENCY_KNOWN_MS = 1;

/**
 * `adaptive` (docs/concepts.md#selection-strategies): power of two choices. Two distinct routes of
 * the tier are drawn uniformly (two draws of the random source) and the one with the lower cost
 * wins:
 *
 *   cost = latency × (inFlight + 1) / (successRate × weight)
 *
 * `latency` is the route's peak-EWMA (time to first byte for streams), drifting back to the
 * best-known latency among the candidates as it goes stale, so a route once slow is tried again
 * and a route never seen counts as good as the best one seen; `weight` is the chain's weight, the
 * prior. A tie goes to the higher weight, then to the first drawn. A lone route is chosen with its
 * cost and no rival.
 */
export const adaptiveStrategy: SelectionStrategy = {
  name: 'adaptive',
  choose(members, context) {
    const routes = routeCandidates(members);
    if (routes.length === 0) return undefined;
    const signals = new Map(routes.map((r) => [r.route, context.signal(r.route)]));
    const neutral = bestKnownLatency([...signals.values()]);
    const costOf = (r: RouteCandidate) => adaptiveCost(signals.get(r.route), r.weight, neutral);
    const [first, second] = drawTwo(routes, context);
    const firstCost = costOf(first);
    if (!second)
      return { model: first.model, route: first.route, decision: { strategy: 'adaptive', score: firstCost } };
    const secondCost = costOf(second);
    const secondWins = secondCost < firstCost || (secondCost === firstCost && second.weight > first.weight);
    const [winner, winnerCost, loser, loserCost] = secondWins
      ? [second, secondCost, first, firstCost]
      : [first, firstCost, second, secondCost];
    return {
      model: winner.model,
      route: winner.route,
      decision: { strategy: 'adaptive', score: winnerCost, rival: { route: loser.route, score: loserCost } },
    };
  },
};

/**
 * The cost of one route (lower is better). `neutral`: the latency a route without a fresh sample
 * drifts to. Exported for tests and the docs' worked example.
 */
export function adaptiveCost(signal: RouteSignal | undefined, weight: number, neutral: number): number {
  const known = signal?.latencyMs;
  const latency = known === undefined ? neutral : neutral + (known - neutral) * (signal?.freshness ?? 0);
  const load = (signal?.inFlight ?? 0) + 1;
  const success = Math.max(signal?.successRate ?? 1, 0.01);
  return (latency * load) / (success * Math.max(weight, Number.MIN_VALUE));
}

/** The lowest latency any candidate has shown (its raw peak-EWMA), or a constant when none has one. */
function bestKnownLatency(signals: readonly RouteSignal[]): number {
  const known = signals.map((s) => s.latencyMs).filter((l): l is number => l !== undefined);
  return known.length > 0 ? Math.min(...known) : NO_LATENCY_KNOWN_MS;
}

/** Two distinct routes drawn uniformly (two draws), or one when there is only one (no draw). */
function drawTwo(
  routes: readonly RouteCandidate[],
  { random }: SelectionContext,
): [RouteCandidate, RouteCandidate | undefined] {
  const only = routes[0] as RouteCandidate;
  if (routes.length === 1) return [only, undefined];
  const i = Math.min(Math.floor(random() * routes.length), routes.length - 1);
  let j = Math.min(Math.floor(random() * (routes.length - 1)), routes.length - 2);
  if (j >= i) j += 1;
  return [routes[i] as RouteCandidate, routes[j] as RouteCandidate];
}
