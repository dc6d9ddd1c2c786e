import type { BreakerSnapshot } from '../breaker/breaker-state.js';
import type { Breakers } from '../breaker/breakers.js';
import type { LedgerEntry } from '../ledger/ledger-entry.js';
import type { RouterDeps } from '../router/route-types.js';
import type { Target } from './target.js';

/**
 * Which chain a request of a pipeline with a canary runs on (docs/design.md#timed-overrides-and-canaries):
 * the canary when `draw` (uniform in [0, 1), the injected random) is below `percent / 100`, else
 * the stable chain. A target without a canary is returned as it is, with no variant.
 */
export function splitCanary(target: Target, draw: number): Target {
  const { canary } = target;
  if (!canary) return target;
  if (draw < canary.percent / 100) {
    return {
      ...target,
      chain: canary.chain,
      tiers: canary.tiers,
      warnings: canary.warnings,
      variant: 'canary',
    };
  }
  return { ...target, variant: 'stable' };
}

/**
 * The router's dependencies for one request of `target`: with a variant, every ledger line says
 * which (and `observe` sees it); with a pin, selection does not see breaker openings of the chain's routes. Recording is
 * untouched, so a pinned route's attempts, failures, openings and alerts are kept as ever.
 */
export function routerFor(
  deps: RouterDeps,
  target: Target,
  observe?: (entry: LedgerEntry) => void,
): RouterDeps {
  if (!target.variant && !target.pinned) return deps;
  const { variant } = target;
  const ledger: RouterDeps['ledger'] = variant
    ? (entry) => {
        const labelled = { ...entry, variant };
        deps.ledger(labelled);
        observe?.(labelled);
      }
    : deps.ledger;
  if (!target.pinned) return { ...deps, ledger };
  const routesOf = deps.routesOf ?? ((model: string) => [model]);
  const held = new Set(target.tiers.flatMap((t) => t.members.flatMap((m) => routesOf(m.key))));
  return { ...deps, ledger, breakers: ignoringOpenings(deps.breakers, held) };
}

/**
 * A held route's breaker as selection sees it under a pin: closed. No opening, no probe slot to
 * claim and no ramp share to draw against; the stored state is untouched.
 */
export function pinnedView(snapshot: BreakerSnapshot): BreakerSnapshot {
  if (snapshot.openUntil === undefined && !snapshot.probing && snapshot.rampStart === undefined)
    return snapshot;
  return { ...snapshot, openUntil: undefined, probing: undefined, rampStart: undefined };
}

/** The breakers as selection sees them under a pin: the held routes never open, probe or ramp. */
function ignoringOpenings(breakers: Breakers, held: ReadonlySet<string>): Breakers {
  return {
    ...breakers,
    async read(pipeline) {
      // A copy: the store may hand out the map it caches.
      const snapshots = new Map(await breakers.read(pipeline));
      for (const [key, snapshot] of snapshots) {
        if (held.has(key)) snapshots.set(key, pinnedView(snapshot));
      }
      return snapshots;
    },
  };
}
