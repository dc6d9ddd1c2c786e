import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { type Alarm, Dashboard } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { SwitchyardConfig } from '../../lambda/core/catalog/config-schema.js';
import { AlarmFactory, alarmNamePattern } from './alarm-factory.js';
import { alarmThresholds } from './alarm-thresholds.js';
import { AlarmTopic } from './alarm-topic.js';
import { addApiAlarms } from './api-alarms.js';
import { addBudgetAlarms } from './budget-alarms.js';
import { addJobAlarms } from './job-alarms.js';
import { addDashboardWidgets } from './operations-dashboard.js';
import { addStoreAlarms } from './store-alarms.js';

export { ALARM_THRESHOLDS } from './alarm-thresholds.js';

export interface OperationsProps {
  handler: IFunction;
  api: RestApi;
  /** API Gateway's integration timeout in s: the default latency threshold follows it. */
  integrationTimeoutSeconds: number;
  /** `aws.alarms` and the admission caps the budget warnings are made for. */
  config: Pick<SwitchyardConfig, 'admission'> & { aws: Pick<SwitchyardConfig['aws'], 'alarms'> };
  breakerTable: ITable;
  jobs: {
    table: ITable;
    queue: IQueue;
    /** The jobs' dead-letter queue: any message there is work waiting for a replay. */
    deadLetters: IQueue;
    worker: IFunction;
    /** Present with schedules. */
    scheduler?: IFunction | undefined;
    /** The schedules' dead-letter queue (a fan-out that never started), present with schedules. */
    scheduleDeadLetters?: IQueue | undefined;
  };
  /** Subscribed to the alarm topic when set. */
  alarmEmail?: string | undefined;
  /** The dashboard's name. */
  dashboardName: string;
  /** Every alarm is named `<prefix>.<Alarm>`; the topic's grants are scoped to `<prefix>.*`. A stack name. */
  alarmNamePrefix: string;
}

/**
 * The alarms a person must act on, the topic they notify (and the e-mail it reaches), and the
 * dashboard. Routine events (429 storms, breaker openings, a cap refusing) are routed around or are
 * the limit doing its job, and are only drawn on the dashboard: what pages is user harm (exhausted
 * requests, 5XX, latency, Lambda errors and throttles), a quarantined route, failing stores, stuck
 * or dead-lettered work, and a spend cap about to refuse. Every alarm notifies again on OK.
 */
export class Operations extends Construct {
  readonly topic: Topic;
  readonly alarms: Record<string, Alarm>;
  readonly dashboardName: string;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    this.topic = new AlarmTopic(this, 'AlarmTopic', {
      email: props.alarmEmail,
      alarmNamePattern: alarmNamePattern(props.alarmNamePrefix),
    }).topic;
    const factory = new AlarmFactory(this, props.alarmNamePrefix, this.topic);
    const t = alarmThresholds(props.config.aws.alarms, props.integrationTimeoutSeconds);
    const { jobs } = props;
    addApiAlarms(factory, { handler: props.handler, api: props.api }, t);
    addJobAlarms(factory, jobs, t);
    addStoreAlarms(factory, { breakerTable: props.breakerTable, jobsTable: jobs.table }, t);
    addBudgetAlarms(factory, props.config.admission, t);
    this.alarms = factory.alarms;

    // Same id as before: a new logical id would create the same-named dashboard, then delete it.
    const dashboard = new Dashboard(this, 'Dashboard', { dashboardName: props.dashboardName });
    addDashboardWidgets(dashboard, {
      handler: props.handler,
      api: props.api,
      jobs,
      tables: { breaker: props.breakerTable, jobs: jobs.table },
      alarms: Object.values(this.alarms),
      minRequests: t.minRequests,
    });
    this.dashboardName = props.dashboardName;
  }
}
