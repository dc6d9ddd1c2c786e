import type { CapacityLease, CapacityRefusal } from '../capacity/route-capacity.js';
import { NO_LEASE } from '../capacity/route-capacity.js';
import type { SkippedRoute } from '../ledger/ledger-entry.js';
import type { RouterDeps } from './route-types.js';

/** Why a request could not go on for capacity: every route it could still call was full or out of quota. */
export interface CapacityExhausted extends CapacityRefusal {
  /** The refused routes, by route key. */
  refused: ReadonlyMap<string, CapacityRefusal>;
}

/**
 * What one request met at the routes' bulkheads and declared quotas (docs/concepts.md#bulkheads):
 * a route that refuses an attempt is left out for the rest of the request, fail-open included,
 * and reported once as skipped (`!<route key>:full`, `!<route key>:quota`).
 */
export function capacityGate(deps: Pick<RouterDeps, 'capacity' | 'clock'>, tokens: number) {
  const refused = new Map<string, CapacityRefusal>();
  const unreported: string[] = [];
  return {
    /** True when `route` refused an attempt of this request. */
    refuses: (route: string) => refused.has(route),
    /** The lease of an attempt on `route`; undefined when the route is full or out of quota. */
    async take(route: string): Promise<CapacityLease | undefined> {
      const { capacity } = deps;
      if (!capacity?.limits(route)) return NO_LEASE;
      const grant = await capacity.acquire(route, tokens);
      if (grant.ok) return grant.lease;
      refused.set(route, { reason: grant.reason, retryAfterMs: grant.retryAfterMs });
      unreported.push(route);
      return undefined;
    },
    /** The refusals not yet reported, as skipped routes of the next attempt's record. */
    drainSkipped(): SkippedRoute[] {
      const now = deps.clock.now();
      return unreported.splice(0).map((route) => {
        const refusal = refused.get(route) as CapacityRefusal;
        return { route, reason: refusal.reason, until: new Date(now + refusal.retryAfterMs).toISOString() };
      });
    },
    /** Set when a route refused: the soonest retry and the reason most routes gave (`full` over `quota` on a tie). */
    exhausted(): CapacityExhausted | undefined {
      if (refused.size === 0) return undefined;
      const all = [...refused.values()];
      const quota = all.filter((r) => r.reason === 'quota').length;
      return {
        reason: quota > all.length - quota ? 'quota' : 'full',
        retryAfterMs: Math.min(...all.map((r) => r.retryAfterMs)),
        refused,
      };
    },
  };
}

export type CapacityGate = ReturnType<typeof capacityGate>;
