import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import * as z from 'zod';
import {
  type AwsCredentials,
  awsClientIdentity,
  awsEnvFields,
  optionalText,
  parseEnv,
} from '../../aws/aws-env.js';
import { isAwsEndpoint } from '../../aws/dynamodb-client.js';
import { ConfigError } from '../../core/errors.js';
import { sqsErrorCode } from './sqs-errors.js';

/** Queue name when `SWITCHYARD_JOB_QUEUE` is not set; its dead-letter queue is `<name>-dlq`. */
export const DEFAULT_JOB_QUEUE = 'switchyard-jobs';

/** Settings of the local job queues; the CDK stack chooses its own in AWS. */
export const JOB_QUEUE_DEFAULTS = {
  /** Seconds a received message stays hidden (SQS's own default). */
  visibilityTimeoutSeconds: 30,
  /** Seconds both queues keep a message: 14 days, SQS's maximum, so a parked job waits for replay. */
  retentionSeconds: 1_209_600,
} as const;

/** `switchyard-jobs` → `switchyard-jobs-dlq`. */
export const deadLetterQueueName = (queueName: string): string => `${queueName}-dlq`;

/** Where the job queues are and how to reach them, read from the environment. */
export interface JobQueueSettings {
  /** `SWITCHYARD_JOB_QUEUE`, default `switchyard-jobs`. */
  queueName: string;
  /** `SWITCHYARD_JOB_QUEUE_URL` (set by the stack in AWS), when set. */
  queueUrl: string | undefined;
  /** `AWS_ENDPOINT_URL_SQS`; undefined means AWS itself. */
  endpoint: string | undefined;
  /** True when `endpoint` is not AWS: Switchyard may create its queues there. */
  local: boolean;
  region: string | undefined;
  credentials: AwsCredentials;
}

// zod at the edge: the values a person types into a shell or a Lambda setting.
const envSchema = z.object({
  SWITCHYARD_JOB_QUEUE: optionalText.pipe(
    z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,76}$/, {
        error: 'must be an SQS queue name of 1-76 of A-Z a-z 0-9 _ - (its dead-letter queue adds -dlq)',
      })
      .optional(),
  ),
  SWITCHYARD_JOB_QUEUE_URL: optionalText.pipe(z.url({ protocol: /^https?$/ }).optional()),
  AWS_ENDPOINT_URL_SQS: optionalText.pipe(
    z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://127.0.0.1:4566' }).optional(),
  ),
  ...awsEnvFields,
});

/**
 * Reads the job queue settings. A local endpoint gets `us-east-1` and dummy keys when none are
 * set (fauxqs checks no signature). Throws `ConfigError` naming the variable.
 */
export function jobQueueSettings(env: NodeJS.ProcessEnv): JobQueueSettings {
  const e = parseEnv(envSchema, env);
  const local = !isAwsEndpoint(e.AWS_ENDPOINT_URL_SQS);
  return {
    queueName: e.SWITCHYARD_JOB_QUEUE ?? DEFAULT_JOB_QUEUE,
    queueUrl: e.SWITCHYARD_JOB_QUEUE_URL,
    endpoint: e.AWS_ENDPOINT_URL_SQS,
    local,
    ...awsClientIdentity(e, local),
  };
}

/**
 * An SQS client for `settings`. The endpoint is passed explicitly, which also stops the SDK from
 * following a queue URL's own host: fauxqs names its queues `http://sqs.<region>.localhost:<port>/…`,
 * a host that need not resolve.
 */
export function createJobSqsClient(
  settings: Pick<JobQueueSettings, 'endpoint' | 'region' | 'credentials'>,
): SQSClient {
  return new SQSClient({
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    ...(settings.region ? { region: settings.region } : {}),
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
  });
}

/** The job queue and its dead-letter queue. */
export interface JobQueueAddresses {
  queueUrl: string;
  queueArn: string;
  dlqUrl: string;
  dlqArn: string;
}

/** The queues to ensure on a local endpoint, and their settings. */
export interface EnsureJobQueuesOptions {
  client: SQSClient;
  /** The endpoint `client` talks to (`AWS_ENDPOINT_URL_SQS`). Refused when it is AWS itself. */
  endpoint: string | undefined;
  /** Default `switchyard-jobs`; the dead-letter queue is `<queueName>-dlq`. */
  queueName?: string | undefined;
  /** Seconds a received message stays hidden. Default 30; tests use 1–2. */
  visibilityTimeoutSeconds?: number | undefined;
  /** Receives before a message moves to the dead-letter queue: config `jobs.maxReceiveCount`. */
  maxReceiveCount: number;
}

async function queueUrlOf(client: SQSClient, queueName: string): Promise<string | undefined> {
  try {
    return (await client.send(new GetQueueUrlCommand({ QueueName: queueName }))).QueueUrl;
  } catch (error) {
    if (sqsErrorCode(error) === 'QueueDoesNotExist' || sqsErrorCode(error) === 'NonExistentQueue')
      return undefined;
    throw error;
  }
}

/** The queue's URL, creating it with `attributes` when missing (CreateQueue is idempotent for equal attributes). */
async function ensureQueue(client: SQSClient, queueName: string, attributes: Record<string, string>) {
  const url =
    (await queueUrlOf(client, queueName)) ??
    (await client.send(new CreateQueueCommand({ QueueName: queueName, Attributes: attributes }))).QueueUrl;
  if (!url)
    throw new ConfigError('SWITCHYARD_JOB_QUEUE', `the SQS endpoint returned no URL for '${queueName}'`);
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
  );
  const arn = Attributes?.QueueArn;
  if (!arn)
    throw new ConfigError('SWITCHYARD_JOB_QUEUE', `the SQS endpoint returned no ARN for '${queueName}'`);
  return { url, arn };
}

/**
 * Creates the job queue and its dead-letter queue when missing, for local endpoints only (in AWS
 * the CDK stack owns them), and returns both. The source queue gets `VisibilityTimeout` and
 * `RedrivePolicy {deadLetterTargetArn, maxReceiveCount}` every time (so a changed setting takes
 * effect); the dead-letter queue gets `RedriveAllowPolicy {redrivePermission: 'byQueue',
 * sourceQueueArns: [source]}` when it is created. The order (source, then DLQ, then the source's
 * policy) is forced by fauxqs 1.9.2, which accepts `RedriveAllowPolicy` in CreateQueue but not
 * in SetQueueAttributes, while the DLQ's policy must name the source's ARN.
 */
export async function ensureJobQueues(options: EnsureJobQueuesOptions): Promise<JobQueueAddresses> {
  if (isAwsEndpoint(options.endpoint)) {
    throw new ConfigError(
      'AWS_ENDPOINT_URL_SQS',
      'job queues are created only on a local endpoint; in AWS the CDK stack owns them',
    );
  }
  const { client } = options;
  const queueName = options.queueName ?? DEFAULT_JOB_QUEUE;
  const visibility = String(options.visibilityTimeoutSeconds ?? JOB_QUEUE_DEFAULTS.visibilityTimeoutSeconds);
  const retention = String(JOB_QUEUE_DEFAULTS.retentionSeconds);
  const source = await ensureQueue(client, queueName, {
    VisibilityTimeout: visibility,
    MessageRetentionPeriod: retention,
  });
  const dlq = await ensureQueue(client, deadLetterQueueName(queueName), {
    MessageRetentionPeriod: retention,
    RedriveAllowPolicy: JSON.stringify({ redrivePermission: 'byQueue', sourceQueueArns: [source.arn] }),
  });
  await client.send(
    new SetQueueAttributesCommand({
      QueueUrl: source.url,
      Attributes: {
        VisibilityTimeout: visibility,
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: dlq.arn,
          maxReceiveCount: options.maxReceiveCount,
        }),
      },
    }),
  );
  return { queueUrl: source.url, queueArn: source.arn, dlqUrl: dlq.url, dlqArn: dlq.arn };
}
