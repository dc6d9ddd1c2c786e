import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Queue, QueueEncryption, RedrivePermission } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { JOB_TABLE_KEYS } from '../../lambda/jobs/aws/dynamodb-job-keys.js';
import { keptTable } from './kept-table.js';

export interface JobQueuesProps {
  /** Receives before a message moves to the dead-letter queue. */
  maxReceiveCount: number;
  /** Days the job queue keeps a message (and the jobs table a record). The dead-letter queue keeps 14. */
  retentionDays: number;
  /** The worker's timeout: the queue's visibility timeout is six times it, as AWS advises. */
  workerTimeoutSeconds: number;
}

/** Days the dead-letter queue keeps a message: SQS's maximum, the whole window for a replay. */
export const DEAD_LETTER_RETENTION_DAYS = 14;

/**
 * The job queue, its dead-letter queue (nothing is lost: a job that keeps failing waits there for
 * a replay, for 14 days whatever `retentionDays` says, and the queue outlives a deleted stack), and the jobs table (status, result,
 * attempt summary; TTL after `retentionDays`; deletion protection on).
 */
export class JobQueues extends Construct {
  readonly queue: Queue;
  readonly deadLetters: Queue;
  readonly table: Table;

  constructor(scope: Construct, id: string, props: JobQueuesProps) {
    super(scope, id);
    const retention = Duration.days(props.retentionDays);
    const stack = Stack.of(this);
    // A fixed name gives the job queue an ARN known before it exists, so the dead-letter queue can
    // allow exactly that source without a dependency cycle between the two.
    const queueName = `${stack.stackName}-jobs`;
    const queueArn = stack.formatArn({
      service: 'sqs',
      resource: queueName,
      arnFormat: ArnFormat.NO_RESOURCE_NAME,
    });
    this.deadLetters = new Queue(this, 'DeadLetterQueue', {
      queueName: `${queueName}-dlq`,
      // SQS ages a dead letter from its first enqueue: the maximum leaves the most time to replay.
      retentionPeriod: Duration.days(DEAD_LETTER_RETENTION_DAYS),
      // Kept when the stack is deleted: what waits there is work nobody has replayed yet.
      removalPolicy: RemovalPolicy.RETAIN,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      redriveAllowPolicy: {
        redrivePermission: RedrivePermission.BY_QUEUE,
        sourceQueues: [Queue.fromQueueArn(this, 'JobQueueByArn', queueArn)],
      },
    });
    this.queue = new Queue(this, 'JobQueue', {
      queueName,
      retentionPeriod: retention,
      visibilityTimeout: Duration.seconds(props.workerTimeoutSeconds * 6),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: props.maxReceiveCount },
    });
    this.table = keptTable(this, 'JobsTable', JOB_TABLE_KEYS);
  }
}
