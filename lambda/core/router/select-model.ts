import type { Tier, TierMember } from '../dsl/types.js';
import type { Random } from '../time.js';

/** Why a member may not be picked right now. */
export interface Eligibility {
  /** Breaker open or cooling after a `Retry-After`. */
  isBlocked(key: string): boolean;
  /** Already failed earlier in this same request. */
  hasFailed(key: string): boolean;
}

export interface Selection {
  key: string;
  /** 0-based index of the tier the model was picked from. */
  tier: number;
  /** Sent despite its open breaker (or cooling): no member anywhere was eligible. */
  failOpen: boolean;
}

/** Picks one member at random, each with probability weight / total weight. */
export function pickWeighted(members: readonly TierMember[], random: Random): TierMember | undefined {
  const total = members.reduce((sum, m) => sum + m.weight, 0);
  if (members.length === 0 || !(total > 0)) return members[0];
  let point = random() * total;
  for (const member of members) {
    point -= member.weight;
    if (point < 0) return member;
  }
  return members[members.length - 1];
}

/**
 * One fresh selection (docs/design.md#the-attempt-loop): walk the tiers in order and pick by weight inside the
 * first tier that has an eligible member. When none is eligible anywhere, fail open: pick from
 * the first tier whose members have not all failed in this request (the open list is a hint, not
 * a wall), or from the first tier when every member of every tier has failed.
 */
export function selectModel(
  tiers: readonly Tier[],
  eligibility: Eligibility,
  random: Random,
): Selection | undefined {
  for (const [index, tier] of tiers.entries()) {
    const eligible = tier.members.filter(
      (m) => !eligibility.isBlocked(m.key) && !eligibility.hasFailed(m.key),
    );
    const picked = pickWeighted(eligible, random);
    if (picked) return { key: picked.key, tier: index, failOpen: false };
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
