import type { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { AdmissionStoreFailure } from '../core/admission/admission.js';
import type { PlannedLimit } from '../core/admission/limit-plan.js';
import type { BreakerOpened } from '../core/breaker/breakers.js';
import type { LedgerEntry, LedgerSink } from '../core/ledger/ledger-entry.js';
import type { Logger } from '../core/logger.js';
import type { Dimensions } from '../core/metrics/metric-dimensions.js';
import { logBreakerOpened } from '../wiring/breaker-log-events.js';
import { budgetCapId } from './budget-cap.js';
import type { EmfMetrics, EmfUnit } from './emf-metrics.js';

/** Metric names, shared with the alarms and the dashboard in `lib/constructs/operations.ts`. */
export const METRICS = {
  attempts: 'Attempts',
  fallbacks: 'Fallbacks',
  requests: 'Requests',
  exhausted: 'ExhaustedRequests',
  /** Streams continued after a break (docs/concepts.md#streams-cut-after-output), by pipeline. */
  streamContinuations: 'StreamContinuations',
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
 * Counts a metric once per service (what alarms watch) and once under `dims` (what the dashboard
 * breaks down); every dimension value goes through the buffer's bounding rule
 * (`lambda/core/metrics/metric-dimensions.ts`), and the handler writes the buffer once per invocation.
 */
function emit(metrics: EmfMetrics, name: string, unit: EmfUnit, value: number, dims: Dimensions): void {
  metrics.add(name, unit, value, dims);
}

/**
 * The attempt ledger in Lambda: every entry is a structured log line (the same fields as the local
 * JSON lines) and feeds the CloudWatch EMF metrics of docs/design.md#evidence-the-ledger-and-headers.
 */
export function powertoolsLedger(logger: PowertoolsLogger, metrics: EmfMetrics): LedgerSink {
  return (entry: LedgerEntry) => {
    logger.info(`ledger ${entry.type}`, { ...entry });
    const { pipeline } = entry;
    if (entry.type === 'attempt') {
      emit(metrics, METRICS.attempts, 'Count', 1, { pipeline, model: entry.model });
      if (entry.action === 'fallback')
        emit(metrics, METRICS.fallbacks, 'Count', 1, { pipeline, model: entry.model });
      return;
    }
    emit(metrics, METRICS.requests, 'Count', 1, { pipeline });
    emit(metrics, METRICS.requestLatency, 'Milliseconds', entry.latencyMs, { pipeline });
    // A last resort answered, but every route failed: the alarm must still hear of it.
    if (entry.reason === 'exhausted' || entry.reason === 'deadline' || entry.reason === 'last_resort') {
      emit(metrics, METRICS.exhausted, 'Count', 1, { pipeline });
    }
    if (entry.continued) emit(metrics, METRICS.streamContinuations, 'Count', 1, { pipeline });
  };
}

/**
 * A breaker opening: the log line (ERROR when a person must act) and the metric; a quarantine
 * (our credential refused, the model gone) also counts as `QuarantineOpenings`, which pages.
 */
export function reportBreakerOpened(log: Logger, metrics: EmfMetrics, event: BreakerOpened): void {
  logBreakerOpened(log, event);
  const dims = { pipeline: event.pipeline, model: event.model };
  emit(metrics, METRICS.breakerOpenings, 'Count', 1, dims);
  if (event.alert) emit(metrics, METRICS.quarantineOpenings, 'Count', 1, dims);
}

/** A failed admission store call (already logged by the gateway): the metric, per limit type and policy. */
export function reportAdmissionStoreFailure(metrics: EmfMetrics, failure: AdmissionStoreFailure): void {
  emit(metrics, METRICS.admissionStoreFailures, 'Count', 1, {
    kind: failure.kind,
    policy: failure.policy,
  });
}

/**
 * How full a daily spend cap is after an admission, in %: per scope kind (key or pipeline) and per
 * cap (`budgetCapId`: never the key's name).
 */
export function reportSpendUse(metrics: EmfMetrics, limit: PlannedLimit, share: number): void {
  const percent = Math.round(share * 1000) / 10;
  emit(metrics, METRICS.budgetUsedPercent, 'Percent', percent, { scope: limit.scope });
  // A gauge read as a Maximum: its second service-wide copy changes nothing.
  emit(metrics, METRICS.budgetUsedPercent, 'Percent', percent, { cap: budgetCapId(limit) });
}

/** A failed breaker store call (already logged): the metric, per operation (a fixed set). */
export function reportBreakerStoreFailure(metrics: EmfMetrics, operation: string): void {
  emit(metrics, METRICS.breakerStoreFailures, 'Count', 1, { operation });
}

/** A failed read of the SSM parameter snapshot (already logged): the service-wide count. */
export function reportSsmSnapshotFailure(metrics: EmfMetrics): void {
  emit(metrics, METRICS.ssmSnapshotFailures, 'Count', 1, {});
}
