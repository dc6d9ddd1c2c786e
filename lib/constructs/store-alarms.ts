import { MathExpression } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { METRICS } from '../../lambda/aws/powertools-evidence.js';
import { type AlarmFactory, ALARM_PERIOD as period } from './alarm-factory.js';
import type { AlarmThresholds } from './alarm-thresholds.js';
import { switchyardMetric } from './switchyard-metrics.js';

export interface StoreAlarmSources {
  /** Breaker state, account-route cooling and the admission counters. */
  breakerTable: ITable;
  jobsTable: ITable;
}

/**
 * Read and write throttle events of one table per 5 min (on-demand tables throttle too: hot
 * partitions, table limits). `name` labels it and keeps its metric ids apart from another table's
 * in one graph.
 */
export function tableThrottles(table: ITable, name: string): MathExpression {
  return new MathExpression({
    expression: `FILL(${name}Reads, 0) + FILL(${name}Writes, 0)`,
    usingMetrics: {
      [`${name}Reads`]: table.metric('ReadThrottleEvents', { period, statistic: 'Sum' }),
      [`${name}Writes`]: table.metric('WriteThrottleEvents', { period, statistic: 'Sum' }),
    },
    period,
    label: `${name} table throttle events`,
  });
}

/**
 * The alarms on what the gateway leans on: the breaker store, the admission store, the SSM
 * parameter snapshot and both tables' throttling. Each degrades quietly at first (routing on
 * local knowledge, the last good snapshot), so each pages only once it lasts.
 */
export function addStoreAlarms(alarms: AlarmFactory, sources: StoreAlarmSources, t: AlarmThresholds): void {
  alarms.add({
    name: 'BreakerStoreFailures',
    description: `The breaker table failed ≥ ${t.breakerStoreFailures} calls a period, two periods in a row: containers route on what each knows alone (no shared breakers). See the "breaker store failed" log lines (permissions, throttling, the table).`,
    metric: switchyardMetric(METRICS.breakerStoreFailures, 'Sum', period),
    threshold: t.breakerStoreFailures,
    periods: 2,
  });
  alarms.add({
    name: 'AdmissionStoreFailures',
    description:
      'Admission could not reach its counters (breaker table): spend caps refuse with 503 (admission.onStoreFailure.spend closed, the default) and rate limits are not enforced. See the function log.',
    metric: switchyardMetric(METRICS.admissionStoreFailures, 'Sum', period),
    threshold: t.admissionStoreFailures,
  });
  alarms.add({
    name: 'SsmSnapshotFailures',
    description: `SSM parameter reads failed ≥ ${t.ssmSnapshotFailures} times a period, two periods in a row: containers serve their last good snapshot; new containers route on the config chains (chain overrides wait), and provider keys kept under the SSM prefix are missing there (provider_not_configured); caller keys in the caller-keys table do not depend on SSM. See the "SSM parameters unreadable" log lines (throttling, permissions).`,
    metric: switchyardMetric(METRICS.ssmSnapshotFailures, 'Sum', period),
    threshold: t.ssmSnapshotFailures,
    periods: 2,
  });
  alarms.add({
    name: 'BreakerTableThrottles',
    description:
      'DynamoDB throttles the breaker table (breakers, cooling, admission counters) two periods in a row: breaker and admission calls fail meanwhile.',
    metric: tableThrottles(sources.breakerTable, 'breaker'),
    threshold: t.tableThrottles,
    periods: 2,
  });
  alarms.add({
    name: 'JobsTableThrottles',
    description:
      'DynamoDB throttles the jobs table two periods in a row: job creation and updates fail and are retried.',
    metric: tableThrottles(sources.jobsTable, 'jobs'),
    threshold: t.tableThrottles,
    periods: 2,
  });
}
