import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  type Alarm,
  AlarmStatusWidget,
  type Dashboard,
  GraphWidget,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { METRICS } from '../../lambda/aws/powertools-evidence.js';
import { budgetUse } from './budget-alarms.js';
import { tableThrottles } from './store-alarms.js';
import { exhaustedRate, routineOpenings, switchyardMetric } from './switchyard-metrics.js';

export interface DashboardSources {
  handler: IFunction;
  api: RestApi;
  jobs: {
    queue: IQueue;
    deadLetters: IQueue;
    worker: IFunction;
    scheduler?: IFunction | undefined;
    scheduleDeadLetters?: IQueue | undefined;
  };
  tables: { breaker: ITable; jobs: ITable };
  /** Every alarm, shown by state at the top. */
  alarms: Alarm[];
  /** The exhausted-rate guard, drawn as the alarm sees it. */
  minRequests: number;
}

/**
 * The dashboard's widgets: every alarm's state first, then traffic, fallbacks, breaker openings
 * (quarantines apart), errors, latency, jobs, stores and budgets.
 */
export function addDashboardWidgets(dashboard: Dashboard, props: DashboardSources): void {
  const m = switchyardMetric;
  const { jobs } = props;
  const deadLetterQueues = [
    jobs.deadLetters,
    ...(jobs.scheduleDeadLetters ? [jobs.scheduleDeadLetters] : []),
  ];
  dashboard.addWidgets(
    new TextWidget({
      markdown:
        '# Switchyard\nEvery alarm; requests, attempts and fallbacks; breaker openings (quarantines apart); exhausted requests; latency; the API; jobs; stores; budgets.',
      width: 24,
      height: 2,
    }),
    // An alarm status widget lists at most 100 alarms; many spend caps make more.
    ...Array.from(
      { length: Math.ceil(props.alarms.length / 100) },
      (_, i) =>
        new AlarmStatusWidget({
          title: 'Alarms',
          alarms: props.alarms.slice(i * 100, i * 100 + 100),
          width: 24,
        }),
    ),
    new GraphWidget({
      title: 'Requests, attempts, fallbacks',
      left: [m(METRICS.requests), m(METRICS.attempts), m(METRICS.fallbacks)],
      width: 12,
    }),
    new GraphWidget({
      title: 'Breaker openings and exhausted requests',
      left: [routineOpenings(), m(METRICS.quarantineOpenings), m(METRICS.exhausted)],
      right: [exhaustedRate(props.minRequests)],
      width: 12,
    }),
    new GraphWidget({
      title: 'Request latency (ms)',
      left: [m(METRICS.requestLatency, 'p50'), m(METRICS.requestLatency, 'p99')],
      right: [props.api.metricLatency({ statistic: 'p99' })],
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
      left: deadLetterQueues.map((q) => q.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum' })),
      width: 12,
    }),
    new GraphWidget({
      title: 'Jobs: oldest queued (s), worker and scheduler errors',
      left: [jobs.queue.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum' })],
      right: [jobs.worker.metricErrors(), ...(jobs.scheduler ? [jobs.scheduler.metricErrors()] : [])],
      width: 12,
    }),
    new GraphWidget({
      title: 'Store failures and table throttles',
      left: [
        m(METRICS.breakerStoreFailures),
        m(METRICS.admissionStoreFailures),
        m(METRICS.ssmSnapshotFailures),
      ],
      right: [tableThrottles(props.tables.breaker, 'breaker'), tableThrottles(props.tables.jobs, 'jobs')],
      width: 12,
    }),
    new GraphWidget({
      title: 'Fullest daily spend cap (%)',
      left: [budgetUse('scope', 'key'), budgetUse('scope', 'pipeline')],
      width: 12,
    }),
  );
}
