import { resolve } from 'node:path';
import { GetQueueUrlCommand, type SQSClient } from '@aws-sdk/client-sqs';
import * as z from 'zod';
import {
  createBreakerDynamoDbClient,
  createDocumentClient,
  isAwsEndpoint,
} from '../../aws/dynamodb-client.js';
import type { SwitchyardConfig } from '../../config/switchyard-config.js';
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

/** The SQLite jobs file of `serve` when neither `--jobs-db` nor `SWITCHYARD_JOBS_DB` says otherwise, from the working folder. */
export const DEFAULT_JOBS_DB = '.switchyard/jobs.db';

/** Seconds a received job stays hidden locally (SQS's default); retries come back sooner. */
export const LOCAL_VISIBILITY_SECONDS = 30;

/** The kinds of job backend a local process can use. */
export type JobBackendKind = 'memory' | 'sqlite' | 'aws';

/**
 * Where `serve` and `run-schedule` keep jobs: a SQLite file (durable: survives a killed process),
 * memory in this process (lost when it stops), or DynamoDB + SQS.
 */
export interface LocalJobBackend {
  kind: JobBackendKind;
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

const KINDS = ['sqlite', 'memory', 'aws'] as const satisfies readonly JobBackendKind[];

const jobsEnvSchema = z.object({
  SWITCHYARD_JOBS: z.enum(KINDS, { error: 'must be sqlite, memory or aws' }).optional(),
  SWITCHYARD_JOBS_TABLE: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{3,255}$/, { error: 'must be a DynamoDB table name: 3-255 of A-Z a-z 0-9 _ . -' })
    .optional(),
});

const blankToUndefined = (env: NodeJS.ProcessEnv, name: string) => env[name]?.trim() || undefined;

/**
 * The backend: `flag` (`serve --jobs`) when given, else `SWITCHYARD_JOBS`, else `aws` when
 * `AWS_ENDPOINT_URL_SQS` is set, else `fallback` (`sqlite` for `serve`, `memory` for a one-shot
 * `run-schedule`; default `memory`).
 */
export function jobBackendKind(
  env: NodeJS.ProcessEnv,
  options: { flag?: string | undefined; fallback?: 'memory' | 'sqlite' | undefined } = {},
): JobBackendKind {
  const field = options.flag === undefined ? 'SWITCHYARD_JOBS' : '--jobs';
  const given = options.flag ?? blankToUndefined(env, 'SWITCHYARD_JOBS');
  const parsed = jobsEnvSchema.shape.SWITCHYARD_JOBS.safeParse(given);
  if (!parsed.success) throw new ConfigError(field, `must be sqlite, memory or aws, not '${given}'`);
  return (
    parsed.data ?? (blankToUndefined(env, 'AWS_ENDPOINT_URL_SQS') ? 'aws' : (options.fallback ?? 'memory'))
  );
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
 * The job store and queue for a local process, chosen by {@link jobBackendKind}: a SQLite file
 * (`options.sqlite`), memory, or DynamoDB + SQS (the SDK's standard endpoint variables say
 * where: `AWS_ENDPOINT_URL_DYNAMODB`, `AWS_ENDPOINT_URL_SQS`). On a local endpoint (fauxqs,
 * dynalite) the table and the queues are created when missing; in AWS the stack owns them.
 */
export async function selectJobBackend(options: {
  config: SwitchyardConfig;
  env: NodeJS.ProcessEnv;
  clock: Clock;
  log: Logger;
  /** `serve --jobs`: wins over `SWITCHYARD_JOBS`. */
  flag?: string | undefined;
  /** The backend when nothing chooses one. Default `memory`. */
  fallback?: 'memory' | 'sqlite' | undefined;
  /** Where the SQLite file is: `serve --jobs-db`, else `SWITCHYARD_JOBS_DB`, else `.switchyard/jobs.db`, from `cwd`. */
  sqlite?: { path?: string | undefined; cwd: string } | undefined;
}): Promise<LocalJobBackend> {
  const { config, env, clock, log } = options;
  const kind = jobBackendKind(env, { flag: options.flag, fallback: options.fallback });
  if (kind === 'sqlite') {
    const cwd = options.sqlite?.cwd ?? process.cwd();
    const fromEnv = blankToUndefined(env, 'SWITCHYARD_JOBS_DB');
    const path = options.sqlite?.path ?? fromEnv ?? DEFAULT_JOBS_DB;
    const field =
      options.sqlite?.path === undefined && fromEnv !== undefined ? 'SWITCHYARD_JOBS_DB' : '--jobs-db';
    // Loaded only here: `node:sqlite` and its ExperimentalWarning stay out of every other path.
    const { openSqliteJobBackend } = await import('../sqlite/sqlite-job-backend.js');
    return openSqliteJobBackend({ config, clock, path: resolve(cwd, path), shown: path, field });
  }
  if (kind === 'memory') {
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
      description: 'memory (jobs are lost when this process stops)',
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
