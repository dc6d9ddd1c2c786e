import { Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { type KnownBudgetCap, knownBudgetCaps } from '../../lambda/aws/budget-cap.js';
import { METRICS } from '../../lambda/aws/powertools-evidence.js';
import type { AdmissionSettings } from '../../lambda/core/catalog/admission-config-schema.js';
import { stageMetricNamespace } from '../stage-names.js';
import { type AlarmFactory, ALARM_PERIOD as period } from './alarm-factory.js';
import type { AlarmThresholds } from './alarm-thresholds.js';
import { SERVICE_NAME } from './switchyard-metrics.js';

/** `BudgetUsedPercent` (Maximum per 5 min) of one dimension: `scope` (key, pipeline) or `cap`. */
export function budgetUse(dimension: 'scope' | 'cap', value: string): Metric {
  return new Metric({
    // The stage's namespace, as every other alarmed metric (switchyardMetric).
    namespace: stageMetricNamespace(),
    metricName: METRICS.budgetUsedPercent,
    dimensionsMap: { service: SERVICE_NAME, [dimension]: value },
    statistic: 'Maximum',
    period,
  });
}

/** `key:(default)` → `key-default`, `pipeline:p` → `pipeline-p`: part of an alarm name. */
function capAlarmName(cap: KnownBudgetCap): string {
  return `BudgetWarning-${cap.cap.replace(':', '-').replace(/[()]/g, '')}`;
}

/**
 * Budget warnings that one small cap cannot mask: one per scope kind (keys, pipelines: the fullest
 * cap of that kind, caps set only in `<prefix>/admission` included) and one per cap the config
 * sets, each at `budgetWarningPercent`. A refusal by a cap is the cap doing its job, so nothing
 * pages at 100 %; the warning says a cap is about to refuse, in time to raise it. A gauge reported
 * only on use keeps its state through quiet periods (missing data ignored) until the day resets.
 */
export function addBudgetAlarms(
  alarms: AlarmFactory,
  admission: AdmissionSettings,
  t: AlarmThresholds,
): KnownBudgetCap[] {
  const warn = `is ≥ ${t.budgetWarningPercent} % used (reservations in flight included)`;
  const then =
    'it refuses with 429 budget_exceeded once full, until UTC midnight: `switchyard usage` shows the spend; raise the cap in <prefix>/admission if that is expected, or revoke a leaked key.';
  for (const [scope, label] of [
    ['key', 'Key'],
    ['pipeline', 'Pipeline'],
  ] as const) {
    alarms.add({
      name: `${label}BudgetWarning`,
      description: `The fullest daily spend cap of a ${scope} ${warn}; ${then}`,
      metric: budgetUse('scope', scope),
      threshold: t.budgetWarningPercent,
      missingData: TreatMissingData.IGNORE,
    });
  }
  const caps = knownBudgetCaps(admission);
  for (const cap of caps) {
    alarms.add({
      name: capAlarmName(cap),
      description: `The daily spend cap ${cap.field} ($${cap.usdPerDay}) ${warn} (metric dimension cap=${cap.cap}); ${then}`,
      metric: budgetUse('cap', cap.cap),
      threshold: t.budgetWarningPercent,
      missingData: TreatMissingData.IGNORE,
    });
  }
  return caps;
}
