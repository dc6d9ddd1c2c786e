import type { BreakerSnapshot } from '../breaker/breaker-state.js';
import { routeAccess } from '../breaker/recovery.js';
import type { RouterDeps } from './route-types.js';

/**
 * What one request decided about recovering routes (docs/concepts.md#breaker-recovery): whether a
 * ramping route admits this request (one draw of the injected random source per route and
 * request, so the share holds over many requests), and which probe slots it lost to another.
 */
export function recoveryGate({ random, breakers }: Pick<RouterDeps, 'random' | 'breakers'>) {
  const admitted = new Map<string, boolean>();
  const lostProbes = new Set<string>();
  return {
    /** True when the route's own breaker keeps this request off it. */
    blocks(route: string, snapshot: BreakerSnapshot | undefined, now: number): boolean {
      const access = routeAccess(snapshot, now);
      if (access.kind === 'closed') return false;
      if (access.kind === 'blocked') return true;
      if (access.kind === 'probe') return lostProbes.has(route);
      let admits = admitted.get(route);
      if (admits === undefined) {
        admits = random() * 100 < access.share;
        admitted.set(route, admits);
      }
      return !admits;
    },
    /**
     * The recovery fields of an attempt on `route`, selected while not blocked: a probe once its slot
     * is claimed, or the ramp's share. Undefined when another claimer won the slot: the route is then
     * blocked for the rest of this request.
     */
    async admit(pipeline: string, route: string, snapshot: BreakerSnapshot | undefined, now: number) {
      const access = routeAccess(snapshot, now);
      if (access.kind === 'ramp') return { recovery: 'ramp', rampShare: access.share } as const;
      if (access.kind !== 'probe') return {};
      if (await breakers.claimProbe(pipeline, route, access.slot)) return { recovery: 'probe' } as const;
      lostProbes.add(route);
      return undefined;
    },
  };
}

export type RecoveryGate = ReturnType<typeof recoveryGate>;
