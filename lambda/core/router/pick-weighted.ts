import type { Random } from '../time.js';

/**
 * Picks one member at random, each with probability weight / total weight; one draw of `random`.
 * The first member when every weight is zero; undefined for an empty list.
 */
export function pickWeighted<M extends { weight: number }>(
  members: readonly M[],
  random: Random,
): M | undefined {
  const total = members.reduce((sum, m) => sum + m.weight, 0);
  if (members.length === 0 || !(total > 0)) return members[0];
  let point = random() * total;
  for (const member of members) {
    point -= member.weight;
    if (point < 0) return member;
  }
  return members[members.length - 1];
}
