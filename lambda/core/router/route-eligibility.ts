/**
 * What one selection of the attempt loop sees of the routes (docs/design.md#the-attempt-loop): the
 * callable tiers, the pipeline's breakers and account-route cooling read side by side, route
 * health as model eligibility, and the routes skipped for cooling.
 */
import { type BreakerSnapshot, isCooling } from '../breaker/breaker-state.js';
import { isRouteCooling, type RouteCooling } from '../breaker/route-cooling.js';
import type { Tier } from '../dsl/types.js';
import type { SkippedRoute } from '../ledger/ledger-entry.js';
import type { RecoveryGate } from './recovery-gate.js';
import type { RouterDeps } from './route-types.js';

/** A tier with its position in the chain (the ledger's `tier` is the chain's). */
type NumberedTier = Tier & { number: number };

/** The allowed tiers, each member kept when one of its routes can be called, and each member's callable routes. */
export function callableTiers(
  allowed: readonly Tier[],
  callable: (route: string) => boolean,
  routesOf: (model: string) => readonly string[],
) {
  const routes = new Map<string, string[]>();
  const list: NumberedTier[] = allowed
    .map((tier, index) => ({
      members: tier.members.filter((m) => {
        const usable = routesOf(m.key).filter(callable);
        routes.set(m.key, usable);
        return usable.length > 0;
      }),
      number: index + 1,
    }))
    .filter((tier) => tier.members.length > 0);
  return {
    list,
    routesOf: (model: string) => routes.get(model) ?? [],
    indexOf: (model: string) => list.findIndex((t) => t.members.some((m) => m.key === model)),
  };
}

/** What a selection knows of the routes: the pipeline's breakers and the account routes' cooling. */
export interface Health {
  snapshots: Map<string, BreakerSnapshot>;
  /** By route key: the cooling of the account route it calls. */
  cooling: Map<string, RouteCooling>;
}

/** The pipeline's breakers and its routes' account cooling, read side by side (one store round trip). */
export async function readHealth(
  pipeline: string,
  tiers: ReturnType<typeof callableTiers>,
  deps: RouterDeps,
): Promise<Health> {
  const keys = tiers.list.flatMap((t) => t.members.flatMap((m) => tiers.routesOf(m.key)));
  const [snapshots, cooling] = await Promise.all([
    deps.breakers.read(pipeline),
    deps.breakers.routeCooling(keys),
  ]);
  return { snapshots, cooling };
}

/**
 * The routes this selection passed over only for account-route cooling (docs/concepts.md#account-route-cooling):
 * in the tiers up to the chosen one, not failed in this request, let through by the pipeline's own
 * breaker. Each is reported once per request.
 */
export function skippedFor(
  tiers: ReturnType<typeof callableTiers>,
  chosenTier: number,
  chosen: string,
  routes: ReturnType<typeof routeState>,
  cooling: Map<string, RouteCooling>,
  reported: Set<string>,
): SkippedRoute[] {
  const skipped: SkippedRoute[] = [];
  for (const tier of tiers.list.slice(0, chosenTier + 1)) {
    for (const route of tier.members.flatMap((m) => tiers.routesOf(m.key))) {
      const state = cooling.get(route);
      if (route === chosen || reported.has(route) || !routes.coolingOnly(route) || !state?.coolUntil)
        continue;
      reported.add(route);
      const until = new Date(state.coolUntil).toISOString();
      skipped.push({
        route,
        reason: 'route_cooling',
        until,
        ...(state.cooledBy ? { cooledBy: state.cooledBy } : {}),
      });
    }
  }
  return skipped;
}

/**
 * Route-level health, seen as model-level eligibility for `selectModel`: a model is blocked
 * when none of its routes is both healthy and unfailed, failed when every route has failed. A route
 * is blocked by its pipeline breaker (open, a probe slot taken or lost, not admitted by a ramp, or
 * cooling after a `Retry-After`) or by its account route's cooling.
 */
export function routeState(
  { snapshots, cooling }: Health,
  now: number,
  failed: ReadonlySet<string>,
  routesOf: (model: string) => readonly string[],
  recovering: RecoveryGate,
) {
  const ownBlock = (route: string) => {
    const s = snapshots.get(route);
    return s !== undefined && (isCooling(s, now) || recovering.blocks(route, s, now));
  };
  const accountCooling = (route: string) => isRouteCooling(cooling.get(route), now);
  const isBlocked = (route: string) => ownBlock(route) || accountCooling(route);
  const eligible = (route: string) => !isBlocked(route) && !failed.has(route);
  const firstEligible = (model: string) => routesOf(model).find(eligible);
  return {
    isBlocked,
    /** Blocked by the account route's cooling alone, and not failed in this request. */
    coolingOnly: (route: string) => !failed.has(route) && !ownBlock(route) && accountCooling(route),
    firstEligible,
    asModels: {
      isBlocked: (model: string) => firstEligible(model) === undefined,
      hasFailed: (model: string) => routesOf(model).every((route) => failed.has(route)),
      eligibleRoutes: (model: string) => routesOf(model).filter(eligible),
    },
    /** The route of a selected model: healthy and unfailed, else unfailed (fail-open), else a healthy one, else the first. */
    pick: (model: string) => {
      const routes = routesOf(model);
      return (
        routes.find(eligible) ??
        routes.find((r) => !failed.has(r)) ??
        routes.find((r) => !isBlocked(r)) ??
        routes[0]
      );
    },
  };
}
