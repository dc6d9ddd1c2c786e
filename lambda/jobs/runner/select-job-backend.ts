import { GetQueueUrlCommand, type SQSClient } from '@aws-sdk/client-sqs';
import * as z from 'zod';
import {
  createBreakerDynamoDbClient,
  createDocumentClient,
  isAwsEndpoint,
} from '../../aws/dynamodb-client.js';
import type { SwitchyardConfig } from '../../core/catalog/config-schema.js';
import { ConfigError } from '../../core/errors.js';
import type { JobQueue, JobStore } from '../../core/jobs/job-ports.js';
import type { Logger } from '../../core/logger.js';
import type { Clock } from '../../core/time.js';
import { breakerStoreSettings } from '../../stores/select-breaker-store.js';
import { ensureJobTable } from '../aws/create-job-table.js';
import { DEFAULT_JOB_TABLE } from '../aws/dynamodb-job-keys.js';
import { createDynamoDbJobStore } from '../aws/dynamodb-job-store.js';
import { createJobSqsClient, ensureJobQueues, jobQueueSettings } from '../aws/ensure-job-queues.js';
import { createSqsJobQueue, deleteJob, receiveJobs, releaseJob } from '../aws/sqs-job-queue.js';
import { createMemoryJobQueue, type MemoryJobQueue } from '../memory/memory-job-queue.js';
import { createMemoryJobStore, type MemoryJobStore } from '../memory/memory-job-store.js';
import type { JobQueueConsumer } from './queue-poller.js';

/** Seconds a received job stays hidden locally (SQS's default); retries come back sooner. */
export const LOCAL_VISIBILITY_SECONDS = 30;

/** Where `serve` and `run-schedule` keep jobs: memory in this process, or DynamoDB + SQS. */
export interface LocalJobBackend {
  kind: 'memory' | 'aws';
  store: JobStore;
  queue: JobQueue;
  consumer: JobQueueConsumer;
  /** Set for the memory backend: what the CLI reads to wait for its jobs. */
  memory?: { store: MemoryJobStore; queue: MemoryJobQueue } | undefined;
  /** e.g. `memory`, or `sqs queue at http://127.0.0.1:4566/…, dynamodb table 'switchyard-jobs' at …`. */
  description: string;
  /** The SQS queue URL (AWS backend). */
  queueUrl?: string | undefined;
  close(): void;
}

const jobsEnvSchema = z.object({
  SWITCHYARD_JOBS: z.enum(['memory', 'aws'], { error: 'must be memory or aws' }).optional(),
  SWITCHYARD_JOBS_TABLE: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{3,255}$/, { error: 'must be a DynamoDB table name: 3-255 of A-Z a-z 0-9 _ . -' })
    .optional(),
});

const blankToUndefined = (env: NodeJS.ProcessEnv, name: string) => env[name]?.trim() || undefined;

/** `memory` unless `SWITCHYARD_JOBS=aws`, or `AWS_ENDPOINT_URL_SQS` is set and `SWITCHYARD_JOBS` is not `memory`. */
export function jobBackendKind(env: NodeJS.ProcessEnv): 'memory' | 'aws' {
  const parsed = jobsEnvSchema.shape.SWITCHYARD_JOBS.safeParse(blankToUndefined(env, 'SWITCHYARD_JOBS'));
  if (!parsed.success)
    throw new ConfigError('SWITCHYARD_JOBS', `must be memory or aws, not '${env.SWITCHYARD_JOBS}'`);
  return parsed.data ?? (blankToUndefined(env, 'AWS_ENDPOINT_URL_SQS') ? 'aws' : 'memory');
}

/** The SQS side of `JobQueueConsumer`. Malformed bodies are logged and left for the dead-letter queue. */
export function sqsJobConsumer(ref: { client: SQSClient; queueUrl: string }, log: Logger): JobQueueConsumer {
  return {
    async receive(max, signal) {
      const received = await receiveJobs({ ...ref, max: Math.min(10, max), waitSeconds: 1, signal });
      return received.flatMap((m) => {
        if (m.kind === 'job') {
          return [
            { message: { jobId: m.jobId }, receiptHandle: m.receiptHandle, receiveCount: m.receiveCount },
          ];
        }
        log.warn('job queue message is not a job; left for the dead-letter queue', {
          messageId: m.messageId,
          reason: m.reason,
        });
        return [];
      });
    },
    delete: (receiptHandle) => deleteJob({ ...ref, receiptHandle }),
    release: (receiptHandle, afterSeconds) => releaseJob({ ...ref, receiptHandle, afterSeconds }),
  };
}

async function queueUrlFor(client: SQSClient, env: NodeJS.ProcessEnv, config: SwitchyardConfig) {
  const settings = jobQueueSettings(env);
  if (settings.queueUrl) return settings.queueUrl;
  if (settings.local) {
    const queues = await ensureJobQueues({
      client,
      endpoint: settings.endpoint,
      queueName: settings.queueName,
      maxReceiveCount: config.jobs.maxReceiveCount,
      visibilityTimeoutSeconds: LOCAL_VISIBILITY_SECONDS,
    });
    return queues.queueUrl;
  }
  const { QueueUrl } = await client.send(new GetQueueUrlCommand({ QueueName: settings.queueName }));
  if (!QueueUrl) throw new ConfigError('SWITCHYARD_JOB_QUEUE', `no queue named '${settings.queueName}'`);
  return QueueUrl;
}

/**
 * The job store and queue for a local process. Memory by default; DynamoDB + SQS with
 * `SWITCHYARD_JOBS=aws` or when `AWS_ENDPOINT_URL_SQS` is set (the SDK's standard endpoint
 * variables say where: `AWS_ENDPOINT_URL_DYNAMODB`, `AWS_ENDPOINT_URL_SQS`). On a local endpoint
 * (fauxqs, dynalite) the table and the queues are created when missing; in AWS the stack owns them.
 */
export async function selectJobBackend(options: {
  config: SwitchyardConfig;
  env: NodeJS.ProcessEnv;
  clock: Clock;
  log: Logger;
}): Promise<LocalJobBackend> {
  const { config, env, clock, log } = options;
  if (jobBackendKind(env) === 'memory') {
    const store = createMemoryJobStore({ clock });
    const queue = createMemoryJobQueue({
      clock,
      maxReceiveCount: config.jobs.maxReceiveCount,
      visibilityTimeoutSeconds: LOCAL_VISIBILITY_SECONDS,
    });
    return {
      kind: 'memory',
      store,
      queue,
      consumer: queue,
      memory: { store, queue },
      description: 'memory',
      close() {},
    };
  }

  const parsed = jobsEnvSchema.safeParse({
    SWITCHYARD_JOBS_TABLE: blankToUndefined(env, 'SWITCHYARD_JOBS_TABLE'),
  });
  if (!parsed.success)
    throw new ConfigError('SWITCHYARD_JOBS_TABLE', parsed.error.issues[0]?.message ?? 'invalid');
  const tableName = parsed.data.SWITCHYARD_JOBS_TABLE ?? DEFAULT_JOB_TABLE;
  const { connection } = breakerStoreSettings({ env });
  const dynamo = createBreakerDynamoDbClient(connection);
  const sqs = createJobSqsClient(jobQueueSettings(env));
  const close = () => {
    dynamo.destroy();
    sqs.destroy();
  };
  try {
    if (!isAwsEndpoint(connection.endpoint)) await ensureJobTable(dynamo, tableName);
    const queueUrl = await queueUrlFor(sqs, env, config);
    const ref = { client: sqs, queueUrl };
    const where = (endpoint: string | undefined) => (endpoint ? `at ${endpoint}` : 'on AWS');
    return {
      kind: 'aws',
      store: createDynamoDbJobStore({ client: createDocumentClient(dynamo), tableName, clock }),
      queue: createSqsJobQueue(ref),
      consumer: sqsJobConsumer(ref, log),
      description: `sqs ${queueUrl}, dynamodb table '${tableName}' ${where(connection.endpoint)}`,
      queueUrl,
      close,
    };
  } catch (error) {
    close();
    throw error;
  }
}
