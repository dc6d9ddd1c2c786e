import type { Tier } from '../dsl/types.js';
import type { Random } from '../time.js';
import { pickWeighted } from './pick-weighted.js';
import type { SelectionContext, SelectionDecision, SelectionStrategy } from './selection-strategy.js';
import { weightedStrategy } from './weighted-strategy.js';

export { pickWeighted } from './pick-weighted.js';

/** Why a member may not be picked right now. */
export interface Eligibility {
  /** Breaker open or cooling after a `Retry-After`. */
  isBlocked(key: string): boolean;
  /** Already failed earlier in this same request. */
  hasFailed(key: string): boolean;
  /** The member's routes that may be called now, in the order they are tried. Default: the key alone. */
  eligibleRoutes?(key: string): readonly string[];
}

export interface Selection {
  key: string;
  /** 0-based index of the tier the model was picked from. */
  tier: number;
  /** Sent despite its open breaker (or cooling): no member anywhere was eligible. */
  failOpen: boolean;
  /** The route the strategy chose; absent on fail-open (the model's route is then picked by health). */
  route?: string | undefined;
  /** The score that decided, when the strategy records one (docs/concepts.md#selection-strategies). */
  decision?: SelectionDecision | undefined;
}

/** The signals a strategy reads when the caller has none: nothing known, no prices. */
const NOTHING_KNOWN: Omit<SelectionContext, 'random'> = {
  now: 0,
  signal: () => ({ latencyMs: undefined, freshness: 0, successRate: 1, inFlight: 0 }),
  price: () => undefined,
};

/**
 * One fresh selection (docs/design.md#the-attempt-loop): walk the tiers in order and let the
 * pipeline's strategy (default `weighted`) choose among the eligible routes of the first tier that
 * has an eligible member. When none is eligible anywhere, fail open by weight: pick from the first
 * tier whose members have not all failed in this request (the open list is a hint, not a wall), or
 * from the first tier when every member of every tier has failed.
 */
export function selectModel(
  tiers: readonly Tier[],
  eligibility: Eligibility,
  random: Random,
  strategy: SelectionStrategy = weightedStrategy,
  context: Omit<SelectionContext, 'random'> = NOTHING_KNOWN,
): Selection | undefined {
  for (const [index, tier] of tiers.entries()) {
    const eligible = tier.members
      .filter((m) => !eligibility.isBlocked(m.key) && !eligibility.hasFailed(m.key))
      .map((m) => ({ ...m, routes: eligibility.eligibleRoutes?.(m.key) ?? [m.key] }))
      .filter((m) => m.routes.length > 0);
    const choice = strategy.choose(eligible, { ...context, random });
    if (choice) {
      const { model, route, decision } = choice;
      return { key: model, tier: index, failOpen: false, route, ...(decision ? { decision } : {}) };
    }
  }
  for (const [index, tier] of tiers.entries()) {
    const unfailed = tier.members.filter((m) => !eligibility.hasFailed(m.key));
    const picked = pickWeighted(unfailed, random);
    if (picked) return { key: picked.key, tier: index, failOpen: true };
  }
  // Every member failed in this request: the first tier again. That is a retry of a model, and
  // fail-open only if its breaker is open (or it is cooling) by now.
  const first = tiers[0];
  const picked = first ? pickWeighted(first.members, random) : undefined;
  return picked ? { key: picked.key, tier: 0, failOpen: eligibility.isBlocked(picked.key) } : undefined;
}
