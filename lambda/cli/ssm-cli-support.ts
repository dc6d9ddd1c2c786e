import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SNSClient } from '@aws-sdk/client-sns';
import { SSMClient } from '@aws-sdk/client-ssm';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { SwitchyardError } from '../core/errors.js';
import { CliUsageError } from './cli-io.js';

/** An AWS service did not answer, or answered with an error: one line for the operator, exit status 1. */
export class SsmCommandError extends SwitchyardError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SsmCommandError';
  }
}

/** How an AWS service is named to the operator, and the variable that points the CLI at another endpoint. */
export interface CliAwsService {
  name: string;
  endpointVariable: string;
}

/** SSM Parameter Store: chain overrides, caller keys, provider keys named `/…`. */
export const SSM_SERVICE: CliAwsService = { name: 'SSM', endpointVariable: 'AWS_ENDPOINT_URL_SSM' };
/** Secrets Manager: provider keys whose `apiKeySecret` does not start with `/`. */
export const SECRETS_MANAGER_SERVICE: CliAwsService = {
  name: 'Secrets Manager',
  endpointVariable: 'AWS_ENDPOINT_URL_SECRETS_MANAGER',
};

/** DynamoDB: the caller-keys table `switchyard keys` edits. */
export const DYNAMODB_SERVICE: CliAwsService = {
  name: 'DynamoDB',
  endpointVariable: 'AWS_ENDPOINT_URL_DYNAMODB',
};

/** SNS: the alarm topic, whose subscriptions `switchyard doctor` reads. */
export const SNS_SERVICE: CliAwsService = { name: 'SNS', endpointVariable: 'AWS_ENDPOINT_URL_SNS' };

/**
 * Client settings from the command's environment (so tests can run the CLI in-process); whatever
 * the environment leaves out, the SDK's own chain fills in (profiles, SSO, IMDS). Short socket
 * timeouts, so an unreachable endpoint fails in seconds instead of hanging a terminal.
 */
function cliClientConfig(env: NodeJS.ProcessEnv, service: CliAwsService) {
  const config: {
    maxAttempts: number;
    requestHandler: NodeHttpHandler;
    region?: string;
    endpoint?: string;
    credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  } = {
    maxAttempts: 2,
    requestHandler: new NodeHttpHandler({ connectionTimeout: 3_000, requestTimeout: 10_000 }),
  };
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION;
  if (region) config.region = region;
  const endpoint = env[service.endpointVariable] || env.AWS_ENDPOINT_URL;
  if (endpoint) config.endpoint = endpoint;
  if (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    config.credentials = {
      accessKeyId: env.AWS_ACCESS_KEY_ID,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
      ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
    };
  }
  return config;
}

/** An SSM client for a CLI command (`AWS_ENDPOINT_URL_SSM`, else `AWS_ENDPOINT_URL`). */
export function createCliSsmClient(env: NodeJS.ProcessEnv): SSMClient {
  return new SSMClient(cliClientConfig(env, SSM_SERVICE));
}

/** A Secrets Manager client for a CLI command (`AWS_ENDPOINT_URL_SECRETS_MANAGER`, else `AWS_ENDPOINT_URL`). */
export function createCliSecretsClient(env: NodeJS.ProcessEnv): SecretsManagerClient {
  return new SecretsManagerClient(cliClientConfig(env, SECRETS_MANAGER_SERVICE));
}

/** A DynamoDB client for a CLI command (`AWS_ENDPOINT_URL_DYNAMODB`, else `AWS_ENDPOINT_URL`). */
export function createCliDynamoDbClient(env: NodeJS.ProcessEnv): DynamoDBClient {
  return new DynamoDBClient(cliClientConfig(env, DYNAMODB_SERVICE));
}

/** An SNS client for a CLI command (`AWS_ENDPOINT_URL_SNS`, else `AWS_ENDPOINT_URL`). */
export function createCliSnsClient(env: NodeJS.ProcessEnv): SNSClient {
  return new SNSClient(cliClientConfig(env, SNS_SERVICE));
}

/** True when the error never reached the service: no credentials, no region, no network. */
export function isUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // The SDK adds `$metadata` (attempts) to network errors too; only an answer has a status code.
  const metadata = '$metadata' in error ? (error.$metadata as { httpStatusCode?: number }) : undefined;
  return metadata?.httpStatusCode === undefined;
}

/** One line naming what went wrong and what to do, for any error an AWS call can raise. */
export function describeAwsError(error: unknown, service: CliAwsService = SSM_SERVICE): string {
  if (!(error instanceof Error)) return String(error);
  const code = 'code' in error ? String(error.code) : '';
  if (error.name === 'CredentialsProviderError' || /could not load credentials/i.test(error.message))
    return 'no AWS credentials found: set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY';
  if (/region is missing/i.test(error.message)) return 'no AWS region: set AWS_REGION (e.g. us-east-1)';
  if (/^(ECONNREFUSED|ENOTFOUND|ECONNRESET|ETIMEDOUT|EAI_AGAIN)$/.test(code) || error.name === 'TimeoutError')
    return `cannot reach ${service.name} (${code || error.name}); check the network, AWS_REGION or ${service.endpointVariable}`;
  const message = error.message.split('\n')[0]?.trim();
  if ('$metadata' in error) return `${service.name} answered ${error.name}${message ? `: ${message}` : ''}`;
  return `${error.name}${message ? `: ${message}` : ''}`;
}

/**
 * Runs one AWS call; any AWS failure becomes an `SsmCommandError` whose message starts with
 * `what`. Our own errors (a refused rollback, an invalid stored value) pass through unchanged.
 */
export async function awsCall<T>(service: CliAwsService, what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof SwitchyardError || error instanceof CliUsageError) throw error;
    throw new SsmCommandError(`${what}: ${describeAwsError(error, service)}`, { cause: error });
  }
}

/** `awsCall` for SSM. */
export function ssmCall<T>(what: string, call: () => Promise<T>): Promise<T> {
  return awsCall(SSM_SERVICE, what, call);
}
