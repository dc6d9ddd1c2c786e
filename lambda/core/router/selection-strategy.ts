import type { Price } from '../ledger/cost.js';
import type { SelectionDecision } from '../ledger/ledger-entry.js';
import type { Random } from '../time.js';
import type { RouteSignal } from './route-signals.js';

export type { SelectionDecision } from '../ledger/ledger-entry.js';

/** One eligible member of the tier being chosen from, with its eligible routes in their order. */
export interface TierCandidate {
  /** The model key. */
  key: string;
  /** The member's weight in the chain (`A*3`): the prior of every strategy. */
  weight: number;
  /** Route keys of the model that may be called now, in the order they are tried; never empty. */
  routes: readonly string[];
}

/** One route a strategy may pick: a route of a candidate, with its member's weight. */
export interface RouteCandidate {
  model: string;
  route: string;
  weight: number;
}

/** What a strategy may read when it chooses; time and randomness come from here only. */
export interface SelectionContext {
  /** Epoch ms. */
  now: number;
  random: Random;
  /** This container's signals of a route (docs/concepts.md#selection-strategies). */
  signal(route: string): RouteSignal;
  /** The route's catalog price; undefined when it has none. */
  price(route: string): Price | undefined;
}

export interface StrategyChoice {
  model: string;
  route: string;
  decision?: SelectionDecision | undefined;
}

/**
 * How a route is chosen inside the first tier that has an eligible member
 * (docs/concepts.md#selection-strategies). A new strategy is one file exporting one of these,
 * plus one line in `selection-strategies.ts`.
 */
export interface SelectionStrategy {
  readonly name: string;
  /** Picks one route of `members` (never empty); undefined only for an empty list. */
  choose(members: readonly TierCandidate[], context: SelectionContext): StrategyChoice | undefined;
}

/** Every route of the members, each with its member's weight, in tier then route order. */
export function routeCandidates(members: readonly TierCandidate[]): RouteCandidate[] {
  return members.flatMap((m) => m.routes.map((route) => ({ model: m.key, route, weight: m.weight })));
}
