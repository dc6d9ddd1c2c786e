/**
 * The routes of a request that cannot carry what it needs (docs/concepts.md#capabilities): the
 * planner leaves them out of every selection (fail-open included) and reports each once, as an
 * `unsupported` skip.
 */
import type { Capability } from '../capabilities/capability.js';
import { missingCapabilities } from '../capabilities/route-fit.js';
import type { Tier } from '../dsl/types.js';
import type { UnsupportedSkip } from '../ledger/ledger-entry.js';
import type { RouteModel } from './route-types.js';

/** Which routes one request may call, by what they carry, and which skips are still to report. */
export interface CapabilityFilter {
  /** True when the route can carry every need (a route not in the catalog counts as able: others judge it). */
  carries(route: string): boolean;
  /**
   * The unreported skips among the routes of `tiers[0..upTo)` (all tiers when `upTo` is absent),
   * in chain order; each is reported once per request.
   */
  report(tiers: readonly Tier[], upTo?: number): UnsupportedSkip[];
  /** Every skip of the request so far (reported or not), in the order first reported. */
  all(): UnsupportedSkip[];
}

/** A filter over `models` for a request that needs `needs` (none: every route carries it). */
export function createCapabilityFilter(
  needs: readonly Capability[],
  models: (route: string) => RouteModel | undefined,
  routesOf: (model: string) => readonly string[],
): CapabilityFilter {
  // Worked out afresh each time: a few routes per selection, and a catalog never changes mid-request.
  const missingOf = (route: string) => missingCapabilities(needs, models(route)?.capabilities);
  const reported: UnsupportedSkip[] = [];
  const seen = new Set<string>();
  return {
    carries: (route) => missingOf(route).length === 0,
    report(tiers, upTo = tiers.length) {
      const fresh: UnsupportedSkip[] = [];
      for (const tier of tiers.slice(0, upTo)) {
        for (const route of tier.members.flatMap((m) => routesOf(m.key))) {
          const lacks = missingOf(route);
          if (lacks.length === 0 || seen.has(route)) continue;
          seen.add(route);
          fresh.push({ route, reason: 'unsupported', missing: lacks });
        }
      }
      reported.push(...fresh);
      return fresh;
    },
    all: () => [...reported],
  };
}
