import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  type IMetric,
  MathExpression,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS } from '../../lambda/aws/powertools-evidence.js';
import { AlarmTopic } from './alarm-topic.js';
import { addDashboardWidgets } from './operations-dashboard.js';
import { exhaustedRate, switchyardMetric } from './switchyard-metrics.js';

/** When each alarm fires. Every evaluation period is 5 minutes. */
export const ALARM_THRESHOLDS = {
  /** Breakers quarantined (credential refused, model gone) in 5 min. */
  quarantineOpenings: 1,
  /** % of requests exhausted (every route failed or the deadline ran out), two periods in a row. */
  exhaustedPercent: 1,
  /** API function errors (crashes, timeouts) in 5 min. */
  apiErrors: 5,
  /** API function throttles (requests refused for concurrency) in 5 min. */
  apiThrottles: 10,
  /** % of API Gateway answers that are 5XX, two periods in a row, once there are 20 requests a period. */
  api5xxPercent: 5,
  /** Messages waiting in a dead-letter queue. */
  deadLetters: 1,
  /** % of a daily spend cap in use (the fullest cap, reservations included): a warning... */
  budgetWarningPercent: 80,
  /** ...and the cap reached (a request refused for budget reports 100). */
  budgetReachedPercent: 100,
} as const;

export interface OperationsProps {
  handler: IFunction;
  api: RestApi;
  /** The jobs' dead-letter queue: any message there is work waiting for a replay. */
  deadLetters: IQueue;
  /** The schedules' dead-letter queue (a fan-out that never started), when there are schedules. */
  scheduleDeadLetters?: IQueue | undefined;
  /** Subscribed to the alarm topic when set. */
  alarmEmail?: string | undefined;
  /** The dashboard's name. */
  dashboardName: string;
}

/**
 * The alarms a person must act on, the topic they notify (and the e-mail it reaches), and the
 * dashboard. Routine breaker openings (429 storms, failure rates) are routed around and only
 * drawn on the dashboard: what pages is user harm (exhausted requests, 5XX, Lambda errors and
 * throttles), a quarantined route, and work stuck in a dead-letter queue.
 */
export class Operations extends Construct {
  readonly topic: Topic;
  readonly alarms: Record<string, Alarm> = {};
  readonly dashboardName: string;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    const period = Duration.minutes(5);
    this.topic = new AlarmTopic(this, 'AlarmTopic', { email: props.alarmEmail }).topic;
    const notify = new SnsAction(this.topic);
    const alarm = (name: string, description: string, metric: IMetric, threshold: number, periods = 1) => {
      const created = new Alarm(this, `${name}Alarm`, {
        alarmDescription: description,
        metric,
        threshold,
        evaluationPeriods: periods,
        datapointsToAlarm: periods,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      created.addAlarmAction(notify);
      this.alarms[name] = created;
    };

    alarm(
      'QuarantineOpened',
      'A route is quarantined: the upstream refused our credential (upstream_auth) or the model is gone (model_not_found). Fix the key or the model id; see the "route quarantined" log lines.',
      switchyardMetric(METRICS.quarantineOpenings, 'Sum', period),
      ALARM_THRESHOLDS.quarantineOpenings,
    );
    alarm(
      'ExhaustedRate',
      'Callers are getting errors: every route of a pipeline failed or its deadline ran out.',
      exhaustedRate(),
      ALARM_THRESHOLDS.exhaustedPercent,
      2,
    );
    alarm(
      'ApiErrors',
      'The API function crashed or timed out (Lambda Errors).',
      props.handler.metricErrors({ period, statistic: 'Sum' }),
      ALARM_THRESHOLDS.apiErrors,
    );
    alarm(
      'ApiThrottles',
      'Lambda refused API requests for lack of concurrency: raise aws.capacity.apiReservedConcurrency or the account quota.',
      props.handler.metricThrottles({ period, statistic: 'Sum' }),
      ALARM_THRESHOLDS.apiThrottles,
    );
    alarm(
      'Api5xxRate',
      'API Gateway is answering 5XX (exhausted routes, Lambda errors, integration timeouts).',
      new MathExpression({
        expression: 'IF(requests >= 20, 100 * errors / requests, 0)',
        usingMetrics: {
          requests: props.api.metricCount({ period, statistic: 'Sum' }),
          errors: props.api.metricServerError({ period, statistic: 'Sum' }),
        },
        period,
        label: 'API 5XX (%)',
      }),
      ALARM_THRESHOLDS.api5xxPercent,
      2,
    );
    alarm(
      'BudgetAt80Percent',
      'A daily spend cap (admission.*.usdPerDay) is 80 % used: `switchyard usage` shows which key or pipeline.',
      switchyardMetric(METRICS.budgetUsedPercent, 'Maximum', period),
      ALARM_THRESHOLDS.budgetWarningPercent,
    );
    alarm(
      'BudgetAt100Percent',
      'A daily spend cap is reached: its requests get 429 budget_exceeded until UTC midnight. Raise it in <prefix>/admission if that is wrong.',
      switchyardMetric(METRICS.budgetUsedPercent, 'Maximum', period),
      ALARM_THRESHOLDS.budgetReachedPercent,
    );
    const depth = (queue: IQueue) =>
      queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' });
    alarm(
      'DeadLetterDepth',
      'Jobs are waiting in the dead-letter queue: fix the cause, then `switchyard replay`.',
      depth(props.deadLetters),
      ALARM_THRESHOLDS.deadLetters,
    );
    if (props.scheduleDeadLetters) {
      alarm(
        'ScheduleDeadLetterDepth',
        'A schedule did not start its fan-out (EventBridge could not invoke the scheduler, or the scheduler failed): read the message, fix the cause, then run the schedule again.',
        depth(props.scheduleDeadLetters),
        ALARM_THRESHOLDS.deadLetters,
      );
    }

    // Same id as before: a new logical id would create the same-named dashboard, then delete it.
    const dashboard = new Dashboard(this, 'Dashboard', { dashboardName: props.dashboardName });
    addDashboardWidgets(dashboard, {
      handler: props.handler,
      api: props.api,
      deadLetterQueues: [
        props.deadLetters,
        ...(props.scheduleDeadLetters ? [props.scheduleDeadLetters] : []),
      ],
    });
    this.dashboardName = props.dashboardName;
  }
}
