import type { Clock } from '../time.js';
import type { AccountProbe } from './account-probe.js';
import type { BreakerStore } from './breaker-store.js';
import { laterCooling, type RouteCooling } from './route-cooling.js';

interface Entry {
  /** When the store last answered for this route (ms on the callers' clock); undefined: never. */
  fetchedAt?: number | undefined;
  state?: RouteCooling | undefined;
}

/** The per-container view of account-route cooling. */
export interface RouteCoolingReader {
  /** The cooling of these account routes; reads the store only for routes older than the lifetime. */
  read(routes: readonly string[]): Promise<Map<string, RouteCooling>>;
  /** Notes a state this container wrote (or worked out), visible at once. */
  wrote(route: string, state: RouteCooling): void;
  /** Notes a probe gate this container wrote (or worked out), visible at once. */
  wroteProbe(route: string, probe: AccountProbe): void;
}

/**
 * The later cooling of the two, with the probe gate `probe` (a gate has no "later": the store's
 * answer, or this container's own write, is the newest it knows).
 */
function withProbe(cooling: RouteCooling, probe: AccountProbe | undefined): RouteCooling {
  const { probe: _, ...rest } = cooling;
  return probe ? { ...rest, probe } : rest;
}

/**
 * A read cache of account-route cooling, shared by every pipeline of the container: at most one
 * store read per `lifetimeMs` for any route (concurrent misses share it), and this container's own
 * 429s visible at once. A store error keeps what the container last knew (`onError` reports it).
 */
export function createRouteCoolingReader(options: {
  store: BreakerStore;
  clock: Clock;
  lifetimeMs: number;
  onError(error: unknown): void;
}): RouteCoolingReader {
  const { store, clock, lifetimeMs } = options;
  const entries = new Map<string, Entry>();
  const inFlight = new Map<string, Promise<void>>();

  const fetch = async (routes: string[], now: number) => {
    try {
      const found = await store.readRoutes(routes, now);
      for (const route of routes) {
        const entry = entries.get(route) ?? {};
        // A write of ours may have landed while the read was on its way: keep the later end.
        const fresh = found.get(route);
        const state = withProbe(laterCooling(entry.state, fresh), fresh?.probe ?? entry.state?.probe);
        entries.set(route, { fetchedAt: now, state });
      }
    } catch (error) {
      options.onError(error);
    }
  };

  return {
    async read(routes) {
      const now = clock.now();
      const stale = routes.filter((route) => {
        const at = entries.get(route)?.fetchedAt;
        return !inFlight.has(route) && (at === undefined || now < at || now - at >= lifetimeMs);
      });
      if (stale.length > 0) {
        const pending = fetch(stale, now).finally(() => {
          for (const route of stale) if (inFlight.get(route) === pending) inFlight.delete(route);
        });
        for (const route of stale) inFlight.set(route, pending);
      }
      await Promise.all(new Set(routes.map((r) => inFlight.get(r)).filter((p) => p !== undefined)));
      const states = new Map<string, RouteCooling>();
      for (const route of routes) {
        const state = entries.get(route)?.state;
        if (state?.coolUntil !== undefined || state?.probe !== undefined) states.set(route, state);
      }
      return states;
    },
    wrote(route, state) {
      const entry = entries.get(route);
      const merged = withProbe(laterCooling(entry?.state, state), entry?.state?.probe ?? state.probe);
      entries.set(route, { fetchedAt: entry?.fetchedAt, state: merged });
    },
    wroteProbe(route, probe) {
      const entry = entries.get(route);
      entries.set(route, { fetchedAt: entry?.fetchedAt, state: withProbe(entry?.state ?? {}, probe) });
    },
  };
}
