import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { type Dashboard, GraphWidget, TextWidget } from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { METRICS } from '../../lambda/aws/powertools-evidence.js';
import { exhaustedRate, routineOpenings, switchyardMetric } from './switchyard-metrics.js';

export interface DashboardSources {
  handler: IFunction;
  api: RestApi;
  deadLetterQueues: IQueue[];
}

/** The dashboard's widgets: traffic, fallbacks, breaker openings (quarantines apart), errors, queues. */
export function addDashboardWidgets(dashboard: Dashboard, props: DashboardSources): void {
  const m = switchyardMetric;
  dashboard.addWidgets(
    new TextWidget({
      markdown:
        '# Switchyard\nRequests, attempts and fallbacks; breaker openings (quarantines apart); exhausted requests; latency; the API; dead letters.',
      width: 24,
      height: 2,
    }),
    new GraphWidget({
      title: 'Requests, attempts, fallbacks',
      left: [m(METRICS.requests), m(METRICS.attempts), m(METRICS.fallbacks)],
      width: 12,
    }),
    new GraphWidget({
      title: 'Breaker openings and exhausted requests',
      left: [routineOpenings(), m(METRICS.quarantineOpenings), m(METRICS.exhausted)],
      right: [exhaustedRate()],
      width: 12,
    }),
    new GraphWidget({
      title: 'Request latency (ms)',
      left: [m(METRICS.requestLatency, 'p50'), m(METRICS.requestLatency, 'p99')],
      width: 12,
    }),
    new GraphWidget({
      title: 'API Lambda',
      left: [
        props.handler.metricInvocations(),
        props.handler.metricErrors(),
        props.handler.metricThrottles(),
      ],
      right: [props.handler.metricDuration({ statistic: 'p99' })],
      width: 12,
    }),
    new GraphWidget({
      title: 'API Gateway',
      left: [props.api.metricCount(), props.api.metricClientError(), props.api.metricServerError()],
      width: 12,
    }),
    new GraphWidget({
      title: 'Dead letters waiting',
      left: props.deadLetterQueues.map((q) =>
        q.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum' }),
      ),
      width: 12,
    }),
  );
}
