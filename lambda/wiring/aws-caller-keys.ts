import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import * as z from 'zod';
import { optionalText, parseEnv } from '../aws/aws-env.js';
import { createDynamoDbCallerKeys } from '../aws/dynamodb-caller-keys.js';
import { createDocumentClient, type DynamoDbConnection } from '../aws/dynamodb-client.js';
import type { ParameterSource } from '../aws/parameter-snapshot.js';
import { callerKeysParameterName, createSsmCallerKeys, parseCallerKeys } from '../aws/ssm-caller-keys.js';
import type { SwitchyardConfig } from '../config/switchyard-config.js';
import type { Logger } from '../core/logger.js';
import type { CallerKeyCheck } from '../http/caller-auth.js';
import type { KeyReadRetry } from './aws-container.js';

const envSchema = z.object({
  SWITCHYARD_KEYS_TABLE: optionalText.pipe(
    z
      .string()
      .regex(/^[A-Za-z0-9_.-]{3,255}$/, {
        error: 'must be a DynamoDB table name: 3-255 of A-Z a-z 0-9 _ . -',
      })
      .optional(),
  ),
});

/** The caller-keys table named by `SWITCHYARD_KEYS_TABLE` (the stack sets it), or undefined. */
export function callerKeysTableOf(env: NodeJS.ProcessEnv): string | undefined {
  return parseEnv(envSchema, env).SWITCHYARD_KEYS_TABLE;
}

/** What `awsCallerKeys` wires together. */
export interface AwsCallerKeysOptions {
  env: NodeJS.ProcessEnv;
  config: SwitchyardConfig;
  /** The container's snapshot of `<prefix>`: the SSM key set before migration (or without a table). */
  source: ParameterSource;
  /** DynamoDB endpoint, region and keys (the breaker store's connection). */
  connection: DynamoDbConnection;
  retry: KeyReadRetry;
  log: Logger;
}

/**
 * The API's caller keys: with `SWITCHYARD_KEYS_TABLE`, the DynamoDB caller-keys table read per
 * presented key (the SSM parameter `<prefix>/caller-keys` is consulted on a miss only until the
 * table holds its `meta` item); without it, the SSM parameter as before (deployments older than
 * the table). One attempt per DynamoDB call: the lookup retries itself within the read budget.
 */
export function awsCallerKeys(options: AwsCallerKeysOptions): CallerKeyCheck {
  const { config, source, log } = options;
  const ssmKeys = () =>
    createSsmCallerKeys({
      source,
      log,
      maxStaleMs: config.aws.callerKeysMaxStaleMs,
      clock: options.retry.clock,
    });
  const tableName = callerKeysTableOf(options.env);
  if (tableName === undefined) return ssmKeys();
  const { connection } = options;
  const client = new DynamoDBClient({
    ...(connection.endpoint ? { endpoint: connection.endpoint } : {}),
    ...(connection.region ? { region: connection.region } : {}),
    ...(connection.credentials ? { credentials: connection.credentials } : {}),
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler({ connectionTimeout: 1_000, requestTimeout: 1_000 }),
  });
  const parameter = callerKeysParameterName(source.prefix);
  return createDynamoDbCallerKeys({
    ...options.retry,
    client: createDocumentClient(client),
    tableName,
    hitMs: config.aws.callerKeyCacheMs,
    missMs: config.aws.callerKeyMissCacheMs,
    maxStaleMs: config.aws.callerKeysMaxStaleMs,
    readBudgetMs: options.retry.budgetMs,
    legacy: async () => {
      const value = (await source.read()).values.get(parameter);
      return new Map(value === undefined ? [] : Object.entries(parseCallerKeys(parameter, value)));
    },
    log,
  });
}
