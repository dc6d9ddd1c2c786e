import type { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { AdmissionStoreFailure } from '../core/admission/admission.js';
import type { PlannedLimit } from '../core/admission/limit-plan.js';
import type { BreakerOpened } from '../core/breaker/breakers.js';
import { isAdHoc, stateScope } from '../core/catalog/ad-hoc-chains.js';
import type { LedgerEntry, LedgerSink } from '../core/ledger/ledger-entry.js';
import type { Logger } from '../core/logger.js';
import { logBreakerOpened } from '../wiring/breaker-log-events.js';
import { budgetCapId } from './budget-cap.js';

/** Metric names, shared with the alarms and the dashboard in `lib/constructs/operations.ts`. */
export const METRICS = {
  attempts: 'Attempts',
  fallbacks: 'Fallbacks',
  requests: 'Requests',
  exhausted: 'ExhaustedRequests',
  breakerOpenings: 'BreakerOpenings',
  /** The openings a person must act on (`upstream_auth`, `model_not_found`); also counted in `breakerOpenings`. */
  quarantineOpenings: 'QuarantineOpenings',
  requestLatency: 'RequestLatency',
  /** Failed admission store calls, by limit type and policy (docs/concepts.md#admission-budgets-and-rate-limits). */
  admissionStoreFailures: 'AdmissionStoreFailures',
  /** How full a daily spend cap is, in % (100 on a budget refusal), per `scope` and per `cap`: the budget warnings. */
  budgetUsedPercent: 'BudgetUsedPercent',
  /** Failed breaker store calls (the router carried on with what the process knows), by operation. */
  breakerStoreFailures: 'BreakerStoreFailures',
  /** Failed reads of the SSM parameter snapshot (the last good one kept serving, if any). */
  ssmSnapshotFailures: 'SsmSnapshotFailures',
} as const;

/**
 * The metric dimension of a pipeline. Ad-hoc chains are callers' free text: one dimension value
 * for all of them (on every metric), so their number cannot grow the metric count (and the bill)
 * without bound; a pipeline only an override names is kept under its variable (`scopeOf`).
 */
function dimensionOf(pipeline: string, scopeOf: (pipeline: string) => string): string {
  return isAdHoc(pipeline) ? '(ad-hoc)' : scopeOf(pipeline);
}

/** Our `Logger` over the Powertools logger (structured JSON with the Lambda context). */
export function powertoolsLogger(logger: PowertoolsLogger): Logger {
  return {
    debug: (message, fields) => logger.debug(message, { ...fields }),
    info: (message, fields) => logger.info(message, { ...fields }),
    warn: (message, fields) => logger.warn(message, { ...fields }),
    error: (message, fields) => logger.error(message, { ...fields }),
  };
}

/**
 * Emits a metric once per service (what alarms watch) and once per dimension set in `dimSets`
 * (what the dashboard and the per-cap alarms break down), each flushed at once as its own EMF
 * record. With no dimension set only the service copy is written, so a sum never counts twice.
 */
function emit(
  metrics: Metrics,
  name: string,
  unit: (typeof MetricUnit)[keyof typeof MetricUnit],
  value: number,
  ...dimSets: Record<string, string>[]
): void {
  metrics.singleMetric().addMetric(name, unit, value);
  for (const dims of dimSets) {
    const detailed = metrics.singleMetric();
    for (const [key, dim] of Object.entries(dims)) detailed.addDimension(key, dim);
    detailed.addMetric(name, unit, value);
  }
}

/**
 * The attempt ledger in Lambda: every entry is a structured log line (the same fields as the local
 * JSON lines) and feeds the CloudWatch EMF metrics of docs/design.md#evidence-the-ledger-and-headers.
 */
export function powertoolsLedger(
  logger: PowertoolsLogger,
  metrics: Metrics,
  scopeOf: (pipeline: string) => string = stateScope,
): LedgerSink {
  const dimension = (pipeline: string) => dimensionOf(pipeline, scopeOf);
  return (entry: LedgerEntry) => {
    logger.info(`ledger ${entry.type}`, { ...entry });
    if (entry.type === 'attempt') {
      emit(metrics, METRICS.attempts, MetricUnit.Count, 1, {
        pipeline: dimension(entry.pipeline),
        model: entry.model,
      });
      if (entry.action === 'fallback') {
        emit(metrics, METRICS.fallbacks, MetricUnit.Count, 1, {
          pipeline: dimension(entry.pipeline),
          model: entry.model,
        });
      }
      return;
    }
    emit(metrics, METRICS.requests, MetricUnit.Count, 1, { pipeline: dimension(entry.pipeline) });
    emit(metrics, METRICS.requestLatency, MetricUnit.Milliseconds, entry.latencyMs, {
      pipeline: dimension(entry.pipeline),
    });
    // A last resort answered, but every route failed: the alarm must still hear of it.
    if (entry.reason === 'exhausted' || entry.reason === 'deadline' || entry.reason === 'last_resort') {
      emit(metrics, METRICS.exhausted, MetricUnit.Count, 1, { pipeline: dimension(entry.pipeline) });
    }
  };
}

/**
 * A breaker opening: the log line (ERROR when a person must act) and the metric; a quarantine
 * (our credential refused, the model gone) also counts as `QuarantineOpenings`, which pages.
 */
export function reportBreakerOpened(log: Logger, metrics: Metrics, event: BreakerOpened): void {
  logBreakerOpened(log, event);
  const dims = { pipeline: event.pipeline, model: event.model };
  emit(metrics, METRICS.breakerOpenings, MetricUnit.Count, 1, dims);
  if (event.alert) emit(metrics, METRICS.quarantineOpenings, MetricUnit.Count, 1, dims);
}

/** A failed admission store call (already logged by the gateway): the metric, per limit type and policy. */
export function reportAdmissionStoreFailure(metrics: Metrics, failure: AdmissionStoreFailure): void {
  emit(metrics, METRICS.admissionStoreFailures, MetricUnit.Count, 1, {
    kind: failure.kind,
    policy: failure.policy,
  });
}

/**
 * How full a daily spend cap is after an admission, in %: per scope kind (key or pipeline) and per
 * cap (`budgetCapId`: never the key's name).
 */
export function reportSpendUse(metrics: Metrics, limit: PlannedLimit, share: number): void {
  emit(
    metrics,
    METRICS.budgetUsedPercent,
    MetricUnit.Percent,
    Math.round(share * 1000) / 10,
    { scope: limit.scope },
    { cap: budgetCapId(limit) },
  );
}

/** A failed breaker store call (already logged): the metric, per operation (a fixed set). */
export function reportBreakerStoreFailure(metrics: Metrics, operation: string): void {
  emit(metrics, METRICS.breakerStoreFailures, MetricUnit.Count, 1, { operation });
}

/** A failed read of the SSM parameter snapshot (already logged): the service-wide count. */
export function reportSsmSnapshotFailure(metrics: Metrics): void {
  emit(metrics, METRICS.ssmSnapshotFailures, MetricUnit.Count, 1);
}
