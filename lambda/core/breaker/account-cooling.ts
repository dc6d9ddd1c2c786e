import type { AttemptSample } from './breaker-state.js';
import type { BreakersOptions } from './breakers.js';
import { applyRateLimit, NOT_COOLING, type RouteCooling } from './route-cooling.js';
import { createRouteCoolingReader, type RouteCoolingReader } from './route-cooling-reader.js';

/** Account-route cooling as `createBreakers` uses it: by route key in, by account route in the store. */
export interface AccountCooling {
  /** Cools the account route of `routeKey` after a 429 (anything else cools nothing). Never throws. */
  cool(pipeline: string, routeKey: string, sample: AttemptSample): Promise<void>;
  /** The cooling of these route keys' account routes, by route key. Never throws. */
  read(routeKeys: readonly string[]): Promise<Map<string, RouteCooling>>;
  /** The per-container cache of the account routes' items, by account route (the probe gate reads it too). */
  routes: RouteCoolingReader;
}

/**
 * The shared cooling of docs/concepts.md#account-route-cooling over the breaker store: one write per
 * 429 (this container sees it at once, the store's answer or, on a store error, its own), reads
 * through the per-container cache.
 */
export function createAccountCooling(options: BreakersOptions): AccountCooling {
  const { store, clock, policyFor, events = {}, routeCooling: cooling } = options;
  const routes = createRouteCoolingReader({
    store,
    clock,
    lifetimeMs: cooling?.readCacheMs ?? 0,
    onError: (error) => events.onStoreError?.('read-routes', error),
  });
  return {
    routes,
    async cool(pipeline, routeKey, sample) {
      const route = cooling?.accountRouteOf(routeKey);
      if (!cooling || route === undefined || sample.outcome !== 'rate_limited') return;
      const rateLimit = { at: sample.at, pipeline, retryAfterMs: sample.retryAfterMs };
      const policy = { coolMs: cooling.coolMs, maxMs: policyFor(pipeline).openMs };
      try {
        routes.wrote(route, await store.coolRoute(route, rateLimit, policy));
      } catch (error) {
        events.onStoreError?.('cool-route', error);
        routes.wrote(route, applyRateLimit(NOT_COOLING, rateLimit, policy));
      }
    },
    async read(routeKeys) {
      const byKey = new Map<string, string>();
      for (const key of routeKeys) {
        const route = cooling?.accountRouteOf(key);
        if (route !== undefined) byKey.set(key, route);
      }
      if (byKey.size === 0) return new Map();
      const states = await routes.read([...new Set(byKey.values())]);
      const found = new Map<string, RouteCooling>();
      for (const [key, route] of byKey) {
        const state = states.get(route);
        if (state) found.set(key, state);
      }
      return found;
    },
  };
}
