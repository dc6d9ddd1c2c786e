import { Logger } from '@aws-lambda-powertools/logger';
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SSMProvider } from '@aws-lambda-powertools/parameters/ssm';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { GetParametersCommand, SSMClient } from '@aws-sdk/client-ssm';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import * as z from 'zod';
import { parseEnv } from '../aws/aws-env.js';
import { createDocumentClient } from '../aws/dynamodb-client.js';
import { createEmfMetrics, type EmfMetrics } from '../aws/emf-metrics.js';
import { type RetryTiming, retryWithinBudget } from '../aws/jittered-retry.js';
import { configForRegion } from '../aws/regional-config.js';
import { isSsmName, type RemoteKeyReaders, SSM_BATCH_SIZE } from '../aws/remote-keys.js';
import { loadConfig } from '../config/config-file.js';
import type { SwitchyardConfig } from '../config/switchyard-config.js';
import { once } from '../core/lazy-schema.js';
import { configMetricDimensions } from '../core/metrics/metric-dimensions.js';
import type { JobsHttpOptions } from '../doors/shared/door.js';
import { createDynamoDbJobStore } from '../jobs/aws/dynamodb-job-store.js';
import { createSqsJobQueue } from '../jobs/aws/sqs-job-queue.js';
import { systemClock, systemRandom, systemSleep } from './system-time.js';

/**
 * The clients and Powertools utilities a Switchyard Lambda builds once per container; the SSM and
 * Secrets Manager clients and providers at their first use.
 */
export interface AwsContainer {
  env: NodeJS.ProcessEnv;
  config: SwitchyardConfig;
  logger: Logger;
  /** The invocation's EMF metrics; the handler flushes them once its work is done. */
  metrics: EmfMetrics;
  ssm: SSMClient;
  secretsManager: SecretsManagerClient;
  ssmProvider: SSMProvider;
  secrets: SecretsProvider;
}

/** Bound on one key read outside the prefix (its retries included), in ms, when none is given. */
export const KEY_READ_TIMEOUT_MS = 3_000;

/** How key reads are retried: within `budgetMs` (`aws.keyReadBudgetMs`), with jittered backoff. */
export interface KeyReadRetry extends RetryTiming {
  budgetMs: number;
}

/** The real clock, `Math.random` and `setTimeout`, within `budgetMs`. */
export const systemKeyReadRetry = (budgetMs = KEY_READ_TIMEOUT_MS): KeyReadRetry => ({
  budgetMs,
  clock: systemClock,
  random: systemRandom,
  sleep: systemSleep,
});

/** Runs one read with `retry`'s jittered backoff; each try is bounded by the time left. */
export function withKeyReadRetry<T>(
  retry: KeyReadRetry,
  read: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  return retryWithinBudget((remainingMs) => read(AbortSignal.timeout(remainingMs)), {
    ...retry,
    deadlineAt: retry.clock.now() + retry.budgetMs,
  });
}

/** Builds what a container holds once: the bundled config next to the handler, real AWS clients. */
const metricEnvSchema = z.object({
  POWERTOOLS_METRICS_NAMESPACE: z
    .string()
    .regex(/^[A-Za-z0-9/_.#:-]{1,255}$/, 'must be a CloudWatch namespace')
    .optional(),
});

/** The namespace of the deployment's metrics: `POWERTOOLS_METRICS_NAMESPACE` as the stack sets it, else `Switchyard`. */
export function metricNamespaceOf(env: NodeJS.ProcessEnv): string {
  return parseEnv(metricEnvSchema, env).POWERTOOLS_METRICS_NAMESPACE ?? 'Switchyard';
}

export function createAwsContainer(env: NodeJS.ProcessEnv = process.env): AwsContainer {
  // Bounded: a slow SSM must not eat a request's deadline (chains and keys have fallbacks). One
  // attempt per send: our reads retry themselves with jittered backoff within aws.keyReadBudgetMs.
  const bounded = () => ({
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler({ connectionTimeout: 1_000, requestTimeout: 2_000 }),
  });
  // Built on first use, not at init (about 15 ms of module init for the four): SSM is first read
  // by the first request, Secrets Manager only when a key or webhook secret lives there.
  const ssm = once(() => new SSMClient(bounded()));
  const secretsManager = once(() => new SecretsManagerClient(bounded()));
  const ssmProvider = once(() => new SSMProvider({ awsSdkV3Client: ssm() }));
  const secrets = once(() => new SecretsProvider({ awsSdkV3Client: secretsManager() }));
  // One region of a multi-region deployment: its own Bedrock region and inference profiles.
  const config = configForRegion(
    // Validated at synth: trusted when the record beside it matches its text, else validated here.
    loadConfig({ env, cwd: env.LAMBDA_TASK_ROOT ?? process.cwd(), trustValidatedAtSynth: true }).config,
    env.AWS_REGION,
  );
  return {
    env,
    config,
    logger: new Logger({ serviceName: 'switchyard' }),
    metrics: createEmfMetrics({
      // The stack sets the stage's namespace (`Switchyard/<stage>`); its alarms watch that one.
      namespace: metricNamespaceOf(env),
      service: 'switchyard',
      dimensions: configMetricDimensions(config),
    }),
    get ssm() {
      return ssm();
    },
    get secretsManager() {
      return secretsManager();
    },
    get ssmProvider() {
      return ssmProvider();
    },
    get secrets() {
      return secrets();
    },
  };
}

/**
 * Readers for provider keys named outside the prefix, straight over the SDK: `GetParameters`
 * (decrypted, ≤ 10 names; a name SSM does not know is absent from the map) and `GetSecretValue`
 * (a secret that does not exist is undefined). A throttled or failed call is sent again with
 * jittered backoff while `retry.budgetMs` lasts (default `KEY_READ_TIMEOUT_MS`).
 */
export function remoteKeyReaders(
  container: Pick<AwsContainer, 'ssm' | 'secretsManager'>,
  retry: KeyReadRetry = systemKeyReadRetry(),
): RemoteKeyReaders {
  return {
    async ssmBatch(names) {
      if (names.length > SSM_BATCH_SIZE)
        throw new RangeError(`at most ${SSM_BATCH_SIZE} names per GetParameters`);
      const out = await withKeyReadRetry(retry, (abortSignal) =>
        container.ssm.send(new GetParametersCommand({ Names: [...names], WithDecryption: true }), {
          abortSignal,
        }),
      );
      const values = new Map<string, string>();
      for (const p of out.Parameters ?? []) if (p.Name && p.Value !== undefined) values.set(p.Name, p.Value);
      return values;
    },
    async secret(name) {
      try {
        const out = await withKeyReadRetry(retry, (abortSignal) =>
          container.secretsManager.send(new GetSecretValueCommand({ SecretId: name }), { abortSignal }),
        );
        if (out.SecretString !== undefined) return out.SecretString;
        return out.SecretBinary ? new TextDecoder().decode(out.SecretBinary) : undefined;
      } catch (error) {
        if (error instanceof ResourceNotFoundException) return undefined;
        throw error;
      }
    },
  };
}

/** Webhook secrets are read once per container; an hour is longer than most containers live. */
export const SECRET_MAX_AGE_SECONDS = 3_600;

/**
 * Reads a webhook secret by name: `/…` from SSM (SecureString), anything else from Secrets Manager;
 * a throttled read is retried with jittered backoff within `KEY_READ_TIMEOUT_MS`.
 */
export function readSecret(container: AwsContainer): (name: string) => Promise<string | undefined> {
  const retry = systemKeyReadRetry();
  return (name) =>
    retryWithinBudget(() => readSecretOnce(container, name), {
      ...retry,
      deadlineAt: retry.clock.now() + retry.budgetMs,
    });
}

async function readSecretOnce(container: AwsContainer, name: string): Promise<string | undefined> {
  {
    if (isSsmName(name)) {
      return (
        (await container.ssmProvider.get(name, { decrypt: true, maxAge: SECRET_MAX_AGE_SECONDS })) ??
        undefined
      );
    }
    const value = await container.secrets.get(name, { maxAge: SECRET_MAX_AGE_SECONDS });
    return typeof value === 'string' ? value : value ? new TextDecoder().decode(value) : undefined;
  }
}

/** The jobs table and queue named by `SWITCHYARD_JOBS_TABLE` / `SWITCHYARD_JOB_QUEUE_URL`, when both are set. */
export function awsJobs(container: AwsContainer): JobsHttpOptions | undefined {
  const table = container.env.SWITCHYARD_JOBS_TABLE?.trim();
  const queueUrl = container.env.SWITCHYARD_JOB_QUEUE_URL?.trim();
  if (!table || !queueUrl) return undefined;
  return {
    store: createDynamoDbJobStore({
      client: createDocumentClient(new DynamoDBClient({})),
      tableName: table,
    }),
    queue: createSqsJobQueue({ client: new SQSClient({}), queueUrl }),
    retentionDays: container.config.jobs.retentionDays,
  };
}
