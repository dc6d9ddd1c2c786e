import { Duration } from 'aws-cdk-lib';
import { MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { METRICS } from '../../lambda/aws/powertools-evidence.js';
import { stageMetricNamespace } from '../stage-names.js';

/**
 * The namespace `POWERTOOLS_METRICS_NAMESPACE` sets on every function of a deployment without a
 * stage; a stage's is `Switchyard/<stage>` (lib/stage-names.ts).
 */
export const METRIC_NAMESPACE = 'Switchyard';
/** The `service` dimension (`POWERTOOLS_SERVICE_NAME`) that the alarmed copy of each metric carries. */
export const SERVICE_NAME = 'switchyard';

/**
 * One of the gateway's own metrics (the copy with only the `service` dimension), in the namespace
 * of the stage whose stack renders it.
 */
export function switchyardMetric(name: string, statistic = 'Sum', period = Duration.minutes(1)): Metric {
  return new Metric({
    namespace: stageMetricNamespace(),
    metricName: name,
    dimensionsMap: { service: SERVICE_NAME },
    statistic,
    period,
  });
}

/**
 * Exhausted requests (every route failed, or the deadline ran out) as % of requests, per 5 min;
 * 0 for a period with fewer than `minRequests` requests, so three failures at night page nobody.
 */
export function exhaustedRate(minRequests: number): MathExpression {
  const period = Duration.minutes(5);
  return new MathExpression({
    expression: `IF(requests >= ${minRequests}, 100 * exhausted / requests, 0)`,
    usingMetrics: {
      requests: switchyardMetric(METRICS.requests, 'Sum', period),
      exhausted: switchyardMetric(METRICS.exhausted, 'Sum', period),
    },
    period,
    label: 'Exhausted requests (%)',
  });
}

/** Breaker openings that need nobody: rate limits and failure rates, routed around (per minute). */
export function routineOpenings(): MathExpression {
  return new MathExpression({
    expression: 'FILL(openings, 0) - FILL(quarantined, 0)',
    usingMetrics: {
      openings: switchyardMetric(METRICS.breakerOpenings),
      quarantined: switchyardMetric(METRICS.quarantineOpenings),
    },
    period: Duration.minutes(1),
    label: 'Routine openings (429s, failure rate)',
  });
}
