import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { SwitchyardConfig } from '../../lambda/config/switchyard-config.js';
import type { ScheduleConfig } from '../../lambda/core/catalog/jobs-config-schema.js';
import { BundledFunction } from './bundled-function.js';
import type { JobQueues } from './job-queues.js';
import { grantRouting } from './routing-grants.js';
import { Schedules } from './schedules.js';

export interface ScheduledJobsProps {
  schedules: Record<string, ScheduleConfig>;
  queues: JobQueues;
  breakerTable: ITable;
  ssmPrefix: string;
  configFile: string;
  /** The deployed config (provider keys and Bedrock models the worker's router uses). */
  config: SwitchyardConfig;
  workerTimeoutSeconds: number;
  /** Jobs a worker takes from the queue at once. Default 5. */
  batchSize?: number;
  /** Most worker instances the queue drives at once (2–1000), so a cron burst leaves room for live traffic. */
  workerMaxConcurrency: number;
  /** Memory of the worker and the scheduler in MB (`aws.memoryMb`). */
  memoryMb: { worker: number; scheduler: number };
}

/**
 * Per schedule an EventBridge Scheduler schedule ({@link Schedules}) → the scheduler Lambda
 * (fan-out into the job queue, one conditional put per job id), and the worker Lambda on the queue
 * with partial batch failures and a concurrency ceiling. A firing that could not start its fan-out
 * (Scheduler could not invoke the scheduler within its retry policy, or the scheduler failed every
 * asynchronous retry) lands in the schedule dead-letter queue, which keeps it 14 days, survives
 * the stack's deletion and has an alarm of its own.
 */
export class ScheduledJobs extends Construct {
  /** Present when the config has schedules. */
  readonly scheduler: BundledFunction | undefined;
  /** The schedules' and the scheduler's dead-letter queue; present when the config has schedules. */
  readonly scheduleDeadLetters: Queue | undefined;
  readonly worker: BundledFunction;
  /** The Scheduler schedule group, schedules and role; present when the config has schedules. */
  readonly schedules: Schedules | undefined;

  constructor(scope: Construct, id: string, props: ScheduledJobsProps) {
    super(scope, id);
    const { queues } = props;
    const jobsEnv = {
      SWITCHYARD_JOBS_TABLE: queues.table.tableName,
      SWITCHYARD_JOB_QUEUE_URL: queues.queue.queueUrl,
    };

    const scheduled = Object.entries(props.schedules);
    this.scheduleDeadLetters =
      scheduled.length > 0
        ? new Queue(this, 'ScheduleDeadLetterQueue', {
            retentionPeriod: Duration.days(14),
            encryption: QueueEncryption.SQS_MANAGED,
            enforceSSL: true,
            // A firing parked here is a digest nobody got: deleting the stack must not delete it.
            removalPolicy: RemovalPolicy.RETAIN,
          })
        : undefined;
    this.scheduler = this.scheduleDeadLetters
      ? this.createScheduler(props, jobsEnv, this.scheduleDeadLetters)
      : undefined;
    this.schedules =
      this.scheduler && this.scheduleDeadLetters
        ? new Schedules(this, 'Schedules', {
            schedules: props.schedules,
            target: this.scheduler.fn,
            deadLetters: this.scheduleDeadLetters,
          })
        : undefined;

    this.worker = new BundledFunction(this, 'Worker', {
      handlerFile: 'worker.ts',
      configFile: props.configFile,
      timeoutSeconds: props.workerTimeoutSeconds,
      memorySize: props.memoryMb.worker,
      environment: {
        ...jobsEnv,
        SWITCHYARD_STORE: 'dynamodb',
        SWITCHYARD_TABLE: props.breakerTable.tableName,
        SWITCHYARD_SSM_PREFIX: props.ssmPrefix,
      },
    });
    grantRouting(this.worker, {
      ssmPrefix: props.ssmPrefix,
      breakerTable: props.breakerTable,
      config: props.config,
    });
    this.worker.allow('RunJobs', ['dynamodb:GetItem', 'dynamodb:UpdateItem'], [queues.table.tableArn]);
    const webhookSecrets = Object.values(props.schedules).flatMap((s) =>
      s.deliver?.secretName ? [s.deliver.secretName] : [],
    );
    this.worker.allowSecrets('ReadWebhookSecrets', [...new Set(webhookSecrets)]);
    this.worker.fn.addEventSource(
      new SqsEventSource(queues.queue, {
        batchSize: props.batchSize ?? 5,
        reportBatchItemFailures: true,
        maxConcurrency: props.workerMaxConcurrency,
      }),
    );
  }

  private createScheduler(
    props: ScheduledJobsProps,
    environment: Record<string, string>,
    deadLetters: Queue,
  ): BundledFunction {
    const { queues } = props;
    const scheduler = new BundledFunction(this, 'Scheduler', {
      handlerFile: 'scheduler.ts',
      configFile: props.configFile,
      timeoutSeconds: 60,
      memorySize: props.memoryMb.scheduler,
      environment,
      asyncDeadLetterQueue: deadLetters,
    });
    scheduler.allow(
      'CreateJobs',
      ['dynamodb:PutItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem'],
      [queues.table.tableArn],
    );
    scheduler.allow('EnqueueJobs', ['sqs:SendMessage'], [queues.queue.queueArn]);
    return scheduler;
  }
}
