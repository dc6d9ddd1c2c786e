import { describe, expect, it } from 'vitest';
import { CAPABILITIES, type Capabilities } from '../../../lambda/core/capabilities/capability.js';
import { createCapabilityFilter } from '../../../lambda/core/router/capability-filter.js';
import type { RouteModel } from '../../../lambda/core/router/route-types.js';
import { tiersOf } from '../../helpers/router-harness.js';

const without = (...lacking: string[]) =>
  ({
    capabilities: Object.fromEntries(CAPABILITIES.map((c) => [c, !lacking.includes(c)])) as Capabilities,
  }) as RouteModel;
const MODELS: Record<string, RouteModel> = {
  a: without('images'),
  b: without(),
  c: without('images', 'tools'),
};
const models = (route: string) => MODELS[route];
const routesOf = (model: string) => [model];

describe('the capability filter of one request', () => {
  it('lets every route carry a request that needs nothing', () => {
    const filter = createCapabilityFilter([], models, routesOf);
    expect(['a', 'b', 'c'].map(filter.carries)).toEqual([true, true, true]);
    expect(filter.report(tiersOf([['a'], ['b'], ['c']]))).toEqual([]);
  });

  it('counts a route it does not know as able (the catalog check leaves it out elsewhere)', () => {
    expect(createCapabilityFilter(['images'], models, routesOf).carries('unknown')).toBe(true);
  });

  it('reports the skips of the tiers up to a bound once each, in chain order', () => {
    const filter = createCapabilityFilter(['images', 'tools'], models, routesOf);
    const tiers = tiersOf([['a', 'b'], ['c']]);
    expect(filter.carries('a')).toBe(false);
    expect(filter.carries('b')).toBe(true);
    expect(filter.report(tiers, 1)).toEqual([{ route: 'a', reason: 'unsupported', missing: ['images'] }]);
    expect(filter.report(tiers, 1)).toEqual([]);
    expect(filter.report(tiers)).toEqual([
      { route: 'c', reason: 'unsupported', missing: ['images', 'tools'] },
    ]);
    expect(filter.all().map((s) => s.route)).toEqual(['a', 'c']);
  });
});
