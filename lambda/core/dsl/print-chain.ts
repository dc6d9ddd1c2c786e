import type { Tier, TierMember } from './types.js';

function printMember(member: TierMember): string {
  // String() never uses exponent notation inside the weight range the parser accepts
  // (0.001 to 1000000), and always prints the shortest text that reads back as the same number.
  return member.weight === 1 ? member.key : `${member.key}*${String(member.weight)}`;
}

function printTier(tier: Tier): string {
  const [only, ...rest] = tier.members;
  if (only !== undefined && rest.length === 0) return printMember(only);
  return `(${tier.members.map(printMember).join('|')})`;
}

/**
 * Prints tiers as canonical chain text (docs/design.md#the-chain-dsl): tiers joined by `,` without spaces, a tier of
 * one member printed bare (`a`, or `a*3` when its weight is not 1), a larger tier as a group
 * `(a|b*3)`, weights of 1 omitted. Tiers without members are skipped.
 *
 * Round trip: for tiers returned by `parseChain`, parsing the printed text with a resolver that
 * maps every key to itself gives back equal tiers and no warnings. Tiers built by hand round-trip
 * only if their keys are valid chain names and their weights are within the parser's range.
 */
export function printChain(tiers: Tier[]): string {
  return tiers
    .filter((tier) => tier.members.length > 0)
    .map(printTier)
    .join(',');
}
