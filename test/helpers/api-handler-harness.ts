import { readFileSync, writeFileSync } from 'node:fs';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { validatedConfigRecord, validatedRecordPath } from '../../lambda/config/validated-config.js';
import { ConfigError } from '../../lambda/core/errors.js';
import type { FakeUpstream } from '../../lambda/dev/fakes/fake-upstream.js';
import { startFakeOpenAI } from '../../lambda/dev/fakes/openai-fake.js';
import { sha256Hex } from '../../lambda/http/caller-auth.js';
import { seedCallerKeyTable } from './caller-key-table.js';
import { type CapturedOutput, captureProcessOutput } from './capture-output.js';
import { writeTempConfig } from './cli-harness.js';
import { DYNALITE_ENV, type RunningDynalite, startDynalite } from './dynalite.js';
import { type FakeSecretsManager, startFakeSecretsManager } from './fake-secrets-manager.js';
import { type FakeSsm, startFakeSsm } from './fake-ssm.js';
import { installLambdaStreamingRuntime } from './lambda-runtime.js';
import { type InvocationScope, installInvokeStore } from './managed-instances-runtime.js';
import { type RecordingDynamoDbProxy, startRecordingDynamoDbProxy } from './recording-dynamodb-proxy.js';

const fixture: APIGatewayProxyEvent = JSON.parse(
  readFileSync(new URL('../fixtures/apigw-rest-proxy-event.json', import.meta.url), 'utf8'),
);

/** What `restEvent` changes in the recorded event; whatever is left out stays as recorded. */
export interface RestEventParts {
  /** Re-aims the event at another route (path, proxy parameter and request context follow). */
  method?: 'GET' | 'POST' | 'HEAD' | 'OPTIONS';
  path?: string;
  /** Sent as JSON; none gives a `null` body. */
  body?: unknown;
  /** Set in both `headers` and `multiValueHeaders`, as API Gateway does. */
  headers?: Record<string, string>;
}

/** The real API Gateway (REST, payload 1.0) fixture, a `POST /v1/chat/completions`, with our parts. */
export function restEvent(parts: RestEventParts = {}): APIGatewayProxyEvent {
  const e = structuredClone(fixture);
  if (parts.method !== undefined && parts.path !== undefined) {
    e.httpMethod = parts.method;
    e.path = parts.path;
    e.pathParameters = { proxy: parts.path.slice(1) };
    e.requestContext.httpMethod = parts.method;
    e.requestContext.path = `/prod${parts.path}`;
  }
  e.body = parts.body === undefined ? null : JSON.stringify(parts.body);
  for (const [name, value] of Object.entries(parts.headers ?? {})) {
    e.headers[name] = value;
    e.multiValueHeaders[name] = [value];
  }
  return e;
}

/** The `Authorization` header of a caller holding `key`. */
export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** A caller holding `callerKey` asks pipeline `p` to answer "hi". */
export const chatEvent = (
  callerKey: string,
  body: unknown = { model: 'p', messages: [{ role: 'user', content: 'hi' }] },
) => restEvent({ body, headers: bearer(callerKey) });

/** The local servers a deployed API Lambda talks to: its breaker table, SSM, and one upstream. */
export interface HandlerServers {
  dynalite: RunningDynalite;
  ssm: FakeSsm;
  upstream: FakeUpstream;
  /** The fake Secrets Manager, when asked for (`secretsManager`); else it points at a closed port. */
  secrets: FakeSecretsManager | undefined;
}

/** How `startApiHandler` deploys beyond the config. */
export interface HandlerRigOptions {
  /** Route every DynamoDB call of the handler through a recording proxy. */
  recordDynamoDb?: boolean;
  /** Start a fake Secrets Manager (provider keys named without a leading `/`). */
  secretsManager?: boolean;
  /**
   * Where the caller key lives: `ssm` (the `<prefix>/caller-keys` parameter, the default) or
   * `dynamodb` (the caller-keys table `<table>-caller-keys`, marked authoritative, named by
   * `SWITCHYARD_KEYS_TABLE`, as the stack deploys it).
   */
  callerKeys?: 'ssm' | 'dynamodb';
  /** A bundle of the handler to import instead of the source (`test/helpers/api-bundle.ts`). */
  entry?: string;
  /** More environment, e.g. `AWS_LAMBDA_MAX_CONCURRENCY` as Managed Instances set it. */
  env?: NodeJS.ProcessEnv;
}

/** How the API Lambda under test is deployed. */
export interface HandlerDeployment {
  /** The config file's content; its `aws.ssmPrefix` is also the Lambda's `SWITCHYARD_SSM_PREFIX`. */
  config: { aws: { ssmPrefix: string } } & Record<string, unknown>;
  /** Breaker table name (`SWITCHYARD_TABLE`). */
  table: string;
  /** The one caller key, written (hashed, as `tests`) to `<ssmPrefix>/caller-keys`. */
  callerKey: string;
}

/** The API Lambda's handler as the runtime loads it, and what it writes to stdout and stderr. */
export interface LoadedHandler {
  handler: unknown;
  output: CapturedOutput;
  /**
   * The scope each invocation runs in, when the environment says `AWS_LAMBDA_MAX_CONCURRENCY`
   * (Lambda Managed Instances: the runtime's `InvokeStore`); undefined on-demand.
   */
  scope: InvocationScope | undefined;
  /** Stops capturing the output and puts the process environment back. */
  restore(): void;
}

/** A loaded API handler with the servers it reads. */
export interface ApiHandlerRig extends HandlerServers, LoadedHandler {
  /** Path of the config file the handler reads (`SWITCHYARD_CONFIG`). */
  configPath: string;
  /** The proxy every DynamoDB call of the handler goes through, when asked for (`recordDynamoDb`). */
  dynamodb: RecordingDynamoDbProxy | undefined;
  /** Restores the process and stops the servers. */
  stop(): Promise<void>;
}

/**
 * Sets `env` on the process, captures its output (Powertools logs, EMF metrics), installs the
 * streaming runtime's globals (and, with `AWS_LAMBDA_MAX_CONCURRENCY`, the Managed Instances
 * runtime's `InvokeStore`) and imports the API handler, which reads its environment on load:
 * the TypeScript source, or the bundle at `entry`.
 */
export async function loadApiHandler(env: NodeJS.ProcessEnv, entry?: string): Promise<LoadedHandler> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  const output = captureProcessOutput();
  installLambdaStreamingRuntime();
  const scope = env.AWS_LAMBDA_MAX_CONCURRENCY ? installInvokeStore() : undefined;
  const { handler } = (await (entry ? import(entry) : import('../../lambda/handlers/api.js'))) as {
    handler: unknown;
  };
  return {
    handler,
    output,
    scope,
    restore() {
      output.restore();
      process.env = saved;
    },
  };
}

/**
 * Starts dynalite, a fake SSM and a fake OpenAI upstream (and a fake Secrets Manager when asked),
 * lets `deploy` seed them and describe the deployment, writes its caller key (to SSM, or to the
 * caller-keys table), then loads the API handler with the environment the stack gives it, on a
 * DynamoDB breaker store reading those servers. Without `secretsManager`, Secrets Manager points at
 * a closed port.
 */
export async function startApiHandler(
  deploy: (servers: HandlerServers) => HandlerDeployment,
  options: HandlerRigOptions = {},
): Promise<ApiHandlerRig> {
  const [dynalite, ssm, upstream, secrets] = await Promise.all([
    startDynalite(),
    startFakeSsm(),
    startFakeOpenAI(),
    options.secretsManager ? startFakeSecretsManager() : undefined,
  ]);
  const dynamodb = options.recordDynamoDb ? await startRecordingDynamoDbProxy(dynalite.endpoint) : undefined;
  const deployment = deploy({ dynalite, ssm, upstream, secrets });
  const { ssmPrefix } = deployment.config.aws;
  const keysTable = options.callerKeys === 'dynamodb' ? `${deployment.table}-caller-keys` : undefined;
  if (keysTable) await seedCallerKeyTable(dynalite.endpoint, keysTable, { tests: deployment.callerKey });
  else
    ssm.put(`${ssmPrefix}/caller-keys`, JSON.stringify({ tests: sha256Hex(deployment.callerKey) }), {
      type: 'SecureString',
    });
  const configPath = writeTempConfig(deployment.config);
  writeValidatedRecord(configPath);
  const loaded = await loadApiHandler(
    {
      ...DYNALITE_ENV,
      AWS_ENDPOINT_URL_DYNAMODB: dynamodb?.url ?? dynalite.endpoint,
      AWS_ENDPOINT_URL_SSM: ssm.url,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets?.url ?? 'http://127.0.0.1:9',
      ...(keysTable ? { SWITCHYARD_KEYS_TABLE: keysTable } : {}),
      SWITCHYARD_CONFIG: configPath,
      SWITCHYARD_STORE: 'dynamodb',
      SWITCHYARD_TABLE: deployment.table,
      SWITCHYARD_SSM_PREFIX: ssmPrefix,
      POWERTOOLS_SERVICE_NAME: 'switchyard',
      ...options.env,
    },
    options.entry,
  );
  return {
    dynalite,
    ssm,
    upstream,
    secrets,
    configPath,
    dynamodb,
    ...loaded,
    async stop() {
      loaded.restore();
      await Promise.all([
        dynalite.stop(),
        ssm.close(),
        upstream.close(),
        dynamodb?.close(),
        secrets?.close(),
      ]);
    },
  };
}

/**
 * Beside a config the handler will read, the record of its validation that `cdk synth` writes, so
 * the handler starts as deployed (trusting it); a config synth would refuse gets none, and the
 * handler validates it at start.
 */
function writeValidatedRecord(configPath: string): void {
  const text = readFileSync(configPath, 'utf8');
  let record: string;
  try {
    record = validatedConfigRecord(text, configPath);
  } catch (error) {
    if (error instanceof ConfigError) return;
    throw error;
  }
  writeFileSync(validatedRecordPath(configPath), record);
}
