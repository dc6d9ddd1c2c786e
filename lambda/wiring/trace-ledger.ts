import type { Catalog } from '../core/catalog/catalog.js';
import type { Clock } from '../core/time.js';
import { createRequestTracing, type RequestTracing } from '../core/tracing/request-spans.js';
import type { RouteLookup } from '../core/tracing/span-attributes.js';
import type { SpanTracer } from '../core/tracing/span-port.js';
import { findFamily } from '../families/registry.js';

/** The catalog's view of a (model key, provider name) pair, for attempt spans. */
export function catalogRoutes(catalog: Catalog): RouteLookup {
  return (modelKey, provider) => {
    const route = catalog.models.get(modelKey)?.routes.find((r) => r.providerName === provider);
    if (!route) return undefined;
    // A family with a well-known name in the GenAI conventions reports it (`aws.bedrock`).
    const providerName = findFamily(route.provider.type)?.traceName ?? route.providerName;
    return { providerName, model: route.model };
  };
}

/** Request and attempt spans on the gateway's ledger (docs/design.md#traces). */
export function traceLedger(tracer: SpanTracer, catalog: Catalog, clock: Clock): RequestTracing {
  return createRequestTracing({ tracer, now: () => clock.now(), routes: catalogRoutes(catalog) });
}
