import { Duration } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Alias } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS } from '../../lambda/aws/powertools-evidence.js';

export const METRIC_NAMESPACE = 'Switchyard';
export const SERVICE_NAME = 'switchyard';

export interface OperationsProps {
  handler: IFunction;
  /** The jobs' dead-letter queue: any message there is work waiting for a replay. */
  deadLetters: IQueue;
  /** Exhausted requests (every route failed, or the deadline ran out) as % of requests. Default 1. */
  exhaustedPercent?: number;
}

/** Alarms on breaker openings, the exhausted-request rate and dead-letter depth, an alarm topic, and a dashboard. */
export class Operations extends Construct {
  readonly topic: Topic;
  readonly breakerAlarm: Alarm;
  readonly exhaustedAlarm: Alarm;
  readonly deadLetterAlarm: Alarm;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    const metric = (name: string, statistic = 'Sum') =>
      new Metric({
        namespace: METRIC_NAMESPACE,
        metricName: name,
        dimensionsMap: { service: SERVICE_NAME },
        statistic,
        period: Duration.minutes(1),
      });
    this.topic = new Topic(this, 'AlarmTopic', {
      displayName: 'Switchyard alarms',
      enforceSSL: true,
      masterKey: Alias.fromAliasName(this, 'SnsKey', 'alias/aws/sns'),
    });
    const notify = new SnsAction(this.topic);

    this.breakerAlarm = new Alarm(this, 'BreakerOpenedAlarm', {
      alarmDescription:
        'A breaker opened: a route is rate limited, failing, or refusing our credentials. See the "breaker opened" log lines.',
      metric: metric(METRICS.breakerOpenings).with({ period: Duration.minutes(5) }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    const exhaustedRate = new MathExpression({
      expression: 'IF(requests > 0, 100 * exhausted / requests, 0)',
      usingMetrics: {
        requests: metric(METRICS.requests).with({ period: Duration.minutes(5) }),
        exhausted: metric(METRICS.exhausted).with({ period: Duration.minutes(5) }),
      },
      period: Duration.minutes(5),
      label: 'Exhausted requests (%)',
    });
    this.exhaustedAlarm = new Alarm(this, 'ExhaustedRateAlarm', {
      alarmDescription:
        'Callers are getting errors: every route of a pipeline failed or its deadline ran out.',
      metric: exhaustedRate,
      threshold: props.exhaustedPercent ?? 1,
      evaluationPeriods: 2,
      datapointsToAlarm: 2,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.deadLetterAlarm = new Alarm(this, 'DeadLetterDepthAlarm', {
      alarmDescription: 'Jobs are waiting in the dead-letter queue: fix the cause, then `switchyard replay`.',
      metric: props.deadLetters.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: 'Maximum',
      }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    for (const alarm of [this.breakerAlarm, this.exhaustedAlarm, this.deadLetterAlarm])
      alarm.addAlarmAction(notify);

    const dashboard = new Dashboard(this, 'Dashboard', { dashboardName: 'Switchyard' });
    dashboard.addWidgets(
      new TextWidget({
        markdown:
          '# Switchyard\nRequests, attempts and fallbacks; breaker openings; exhausted requests; latency.',
        width: 24,
        height: 2,
      }),
      new GraphWidget({
        title: 'Requests, attempts, fallbacks',
        left: [metric(METRICS.requests), metric(METRICS.attempts), metric(METRICS.fallbacks)],
        width: 12,
      }),
      new GraphWidget({
        title: 'Breaker openings and exhausted requests',
        left: [metric(METRICS.breakerOpenings), metric(METRICS.exhausted)],
        right: [exhaustedRate],
        width: 12,
      }),
      new GraphWidget({
        title: 'Request latency (ms)',
        left: [metric(METRICS.requestLatency, 'p50'), metric(METRICS.requestLatency, 'p99')],
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
    );
  }
}
