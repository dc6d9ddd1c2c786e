import type { AdmissionStore } from '../core/admission/admission-store.js';
import { createRouteCapacity } from '../core/capacity/create-route-capacity.js';
import { createMemoryInFlight, createSharedInFlight, withLocalFallback } from '../core/capacity/in-flight.js';
import type { RouteCapacity } from '../core/capacity/route-capacity.js';
import type { Catalog } from '../core/catalog/catalog.js';
import type { Logger } from '../core/logger.js';
import type { Clock } from '../core/time.js';
import { createMemoryAdmissionStore } from '../stores/memory-admission-store.js';

/**
 * The routes' bulkheads and declared quotas (docs/concepts.md#bulkheads), or undefined when the
 * config declares none. With `capacity.shared` they are counted in `sharedStore` (the breaker
 * table's admission counters when the breakers are in DynamoDB); else in this process's memory.
 */
export function routeCapacityFor(
  catalog: Catalog,
  sharedStore: AdmissionStore | undefined,
  clock: Clock,
  log: Logger,
): RouteCapacity | undefined {
  const settings = catalog.config.capacity;
  const declared =
    Object.keys(settings.providers).length +
    Object.keys(settings.routes).length +
    Object.keys(settings.quotas).length;
  if (declared === 0) return undefined;
  const shared = settings.shared && sharedStore !== undefined;
  const store = shared ? sharedStore : createMemoryAdmissionStore(clock);
  const local = createMemoryInFlight(settings.leaseMs);
  const onStoreError = (error: unknown) =>
    log.warn('capacity store call failed; counting in this process', {
      error: error instanceof Error ? error.name : 'unknown',
    });
  return createRouteCapacity({
    settings,
    clock,
    // A store that cannot answer degrades to this process's own count, never to no bulkhead at all.
    inFlight: shared
      ? withLocalFallback(createSharedInFlight(store, settings.leaseMs), local, onStoreError)
      : local,
    quotaStore: store,
    routeOf: (key) => {
      const route = catalog.routes.get(key);
      return route && { provider: route.providerName, model: route.model };
    },
    onStoreError: (error) =>
      log.warn('capacity store call failed; the attempt goes ahead', {
        error: error instanceof Error ? error.name : 'unknown',
      }),
  });
}
