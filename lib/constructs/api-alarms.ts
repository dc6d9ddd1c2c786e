import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { MathExpression } from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { METRICS } from '../../lambda/aws/powertools-evidence.js';
import { type AlarmFactory, ALARM_PERIOD as period } from './alarm-factory.js';
import type { AlarmThresholds } from './alarm-thresholds.js';
import { exhaustedRate, switchyardMetric } from './switchyard-metrics.js';

export interface ApiAlarmSources {
  handler: IFunction;
  api: RestApi;
}

/**
 * The alarms on what callers meet: quarantined routes, exhausted requests, the API function's
 * errors and throttles, API Gateway's 5XX rate and latency. Each rate waits for
 * `minRequests` requests in a period before it judges it.
 */
export function addApiAlarms(alarms: AlarmFactory, sources: ApiAlarmSources, t: AlarmThresholds): void {
  const { handler, api } = sources;
  alarms.add({
    name: 'QuarantineOpened',
    description:
      'A route is quarantined: the upstream refused our credential (upstream_auth) or the model is gone (model_not_found). Fix the key or the model id; see the "route quarantined" log lines.',
    metric: switchyardMetric(METRICS.quarantineOpenings, 'Sum', period),
    threshold: t.quarantineOpenings,
  });
  alarms.add({
    name: 'ExhaustedRate',
    description: `Callers are getting errors: every route of a pipeline failed or its deadline ran out, for ≥ ${t.exhaustedPercent} % of requests two periods in a row (periods with ≥ ${t.minRequests} requests).`,
    metric: exhaustedRate(t.minRequests),
    threshold: t.exhaustedPercent,
    periods: 2,
  });
  alarms.add({
    name: 'ApiErrors',
    description: 'The API function crashed or timed out (Lambda Errors): read its log.',
    metric: handler.metricErrors({ period, statistic: 'Sum' }),
    threshold: t.apiErrors,
  });
  alarms.add({
    name: 'ApiThrottles',
    description:
      'Lambda refused API requests for lack of concurrency: raise aws.capacity.apiReservedConcurrency or the account quota.',
    metric: handler.metricThrottles({ period, statistic: 'Sum' }),
    threshold: t.apiThrottles,
  });
  const requests = api.metricCount({ period, statistic: 'Sum' });
  alarms.add({
    name: 'Api5xxRate',
    description: `API Gateway is answering 5XX (exhausted routes, Lambda errors, integration timeouts) for ≥ ${t.api5xxPercent} % of requests two periods in a row.`,
    metric: new MathExpression({
      expression: `IF(requests >= ${t.minRequests}, 100 * errors / requests, 0)`,
      usingMetrics: { requests, errors: api.metricServerError({ period, statistic: 'Sum' }) },
      period,
      label: 'API 5XX (%)',
    }),
    threshold: t.api5xxPercent,
    periods: 2,
  });
  alarms.add({
    name: 'ApiLatencyP99',
    description: `API Gateway's p99 latency is ≥ ${t.apiLatencyP99Ms} ms three periods in a row: callers wait close to the integration timeout. Check upstream latency (RequestLatency by pipeline on the dashboard) and reroute the slow pipeline.`,
    metric: new MathExpression({
      expression: `IF(requests >= ${t.minRequests}, latency, 0)`,
      usingMetrics: { requests, latency: api.metricLatency({ period, statistic: 'p99' }) },
      period,
      label: 'API latency p99 (ms)',
    }),
    threshold: t.apiLatencyP99Ms,
    periods: 3,
  });
}
