import type { SwitchyardConfig } from '../config/switchyard-config.js';
import type { Admission } from '../core/admission/admission.js';
import type { UsageLine } from '../core/admission/read-usage.js';
import type { BreakerEvents } from '../core/breaker/breakers.js';
import { stateScopeIn } from '../core/catalog/ad-hoc-chains.js';
import type { Gateway } from '../core/gateway/gateway.js';
import type { LedgerSink } from '../core/ledger/ledger-entry.js';
import { createGatewayMetrics } from '../core/metrics/gateway-metrics.js';
import { configMetricDimensions } from '../core/metrics/metric-dimensions.js';
import { createRecentRequests } from '../core/status/recent-requests.js';
import { statusSnapshot } from '../core/status/status-snapshot.js';
import type { Clock } from '../core/time.js';
import type { ObserveRoutes } from '../http/observe-routes.js';

/** The metrics and the status page's memory, each present only when the config enables it. */
export interface Observers {
  /** The ledger to give the gateway: `inner` first, then the metrics and the recent requests. */
  ledger(inner: LedgerSink): LedgerSink;
  /** Breaker events that also count openings in the metrics. */
  breakerEvents(inner: BreakerEvents): BreakerEvents;
  /** The routes to serve, once the gateway and admission exist; `withConsole`: the page shows the operator console. */
  routes(gateway: Gateway, admission: Admission, withConsole: boolean): ObserveRoutes;
}

/** Every admission limit the config names (keys, then pipelines) and what it holds now. */
async function configuredLimits(config: SwitchyardConfig, admission: Admission): Promise<UsageLine[]> {
  const keys = Object.keys(config.admission.keys);
  const pipelines = Object.keys(config.admission.pipelines);
  const lines = await Promise.all([
    ...keys.map((k) => admission.usage(k, undefined)),
    ...pipelines.map((p) => admission.usage(undefined, p)),
  ]);
  return lines.flat();
}

/** Feeds `metrics` and `statusPage` (docs/operations.md#metrics) from the ledger and the breaker events. */
export function createObservers(config: SwitchyardConfig, clock: Clock): Observers {
  // Callers must not mint series or rows: names are kept as the breakers keep them (stateScopeIn).
  const scopeOf = stateScopeIn((pipeline) => Object.hasOwn(config.pipelines, pipeline));
  const metrics = config.metrics.enabled
    ? createGatewayMetrics(config.metrics.latencyBucketsMs, configMetricDimensions(config))
    : undefined;
  const page = config.statusPage;
  const recent = page.enabled ? createRecentRequests(page.recentRequests, clock, scopeOf) : undefined;
  return {
    ledger: (inner) =>
      !metrics && !recent
        ? inner
        : (entry) => {
            inner(entry);
            metrics?.record(entry);
            recent?.record(entry);
          },
    breakerEvents: (inner) =>
      !metrics
        ? inner
        : {
            ...inner,
            onOpened: (event) => {
              inner.onOpened?.(event);
              metrics.opened(event);
            },
          },
    routes: (gateway, admission, withConsole) => ({
      metrics,
      status: recent && {
        refreshMs: page.refreshMs,
        console: withConsole,
        snapshot: () =>
          statusSnapshot({
            gateway,
            recent,
            limits: () => configuredLimits(config, admission),
            clock,
            refreshMs: page.refreshMs,
          }),
      },
    }),
  };
}
