import { pickWeighted } from './pick-weighted.js';
import type { SelectionStrategy } from './selection-strategy.js';

/**
 * `weighted`, the default (SPEC §6.2): a member at random by its chain weight, then its first
 * eligible route. One draw of the random source per choice; no decision is recorded.
 */
export const weightedStrategy: SelectionStrategy = {
  name: 'weighted',
  choose(members, { random }) {
    const picked = pickWeighted(members, random);
    const route = picked?.routes[0];
    return picked && route !== undefined ? { model: picked.key, route } : undefined;
  },
};
