import * as z from 'zod';
import { awsClientIdentity, awsEnvFields, optionalText, parseEnv } from '../aws/aws-env.js';
import {
  createBreakerDynamoDbClient,
  createDocumentClient,
  type DynamoDbConnection,
  isAwsEndpoint,
} from '../aws/dynamodb-client.js';
import type { BreakerStore } from '../core/breaker/breaker-store.js';
import type { AnswerCacheSettings } from '../core/catalog/output-config-schema.js';
import { ConfigError, SwitchyardError } from '../core/errors.js';
import type { AnswerCache } from '../core/last-resort/answer-cache.js';
import { withReadCache } from './cached-breaker-store.js';
import { ensureBreakerTable } from './create-breaker-table.js';
import { createDynamoDbAnswerCache } from './dynamodb-answer-cache.js';
import { DEFAULT_BREAKER_TABLE } from './dynamodb-breaker-keys.js';
import { createDynamoDbBreakerStore } from './dynamodb-breaker-store.js';
import { createMemoryBreakerStore } from './memory-breaker-store.js';

/** The breaker stores Switchyard has. */
export const BREAKER_STORE_KINDS = ['memory', 'dynamodb'] as const;
/** `memory` (one process) or `dynamodb` (shared). */
export type BreakerStoreKind = (typeof BREAKER_STORE_KINDS)[number];

/** Which breaker store to use and how to reach it, read from a flag and the environment. */
export interface BreakerStoreSettings {
  kind: BreakerStoreKind;
  /** Table name. Default `switchyard-breakers`. */
  tableName: string;
  /** True when `SWITCHYARD_TABLE` was not set and the default name is used. */
  defaultTable: boolean;
  /** Read cache lifetime in ms (`SWITCHYARD_BREAKER_CACHE_MS`). Default 0: off. */
  cacheMs: number;
  connection: DynamoDbConnection;
}

// zod at the edge: every value a person types into a shell or a Lambda setting.
const envSchema = z.object({
  SWITCHYARD_STORE: optionalText.pipe(
    z.enum(BREAKER_STORE_KINDS, { error: 'must be memory or dynamodb' }).optional(),
  ),
  SWITCHYARD_TABLE: optionalText.pipe(
    z
      .string()
      .regex(/^[A-Za-z0-9_.-]{3,255}$/, {
        error: 'must be a DynamoDB table name: 3-255 of A-Z a-z 0-9 _ . -',
      })
      .optional(),
  ),
  SWITCHYARD_BREAKER_CACHE_MS: optionalText.pipe(
    z
      .string()
      .regex(/^\d+$/, { error: 'must be a whole number of milliseconds' })
      .transform(Number)
      .pipe(
        z
          .number()
          .max(60_000, { error: 'must be at most 60000: a breaker read older than a minute is a guess' }),
      )
      .optional(),
  ),
  AWS_ENDPOINT_URL_DYNAMODB: optionalText.pipe(
    z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://127.0.0.1:4567' }).optional(),
  ),
  ...awsEnvFields,
});

/**
 * Reads the store choice: the flag (`--store`), else `SWITCHYARD_STORE`, else memory. For
 * DynamoDB: `SWITCHYARD_TABLE` (default `switchyard-breakers`), the endpoint from the SDK's own
 * `AWS_ENDPOINT_URL_DYNAMODB`, region and keys from the usual `AWS_*` variables (a local
 * endpoint gets `us-east-1` and dummy keys when none are set: dynalite checks no signature).
 * Throws `ConfigError` naming the flag or variable.
 */
export function breakerStoreSettings(options: {
  flag?: string | undefined;
  env: NodeJS.ProcessEnv;
}): BreakerStoreSettings {
  const kind = options.flag === undefined ? undefined : z.enum(BREAKER_STORE_KINDS).safeParse(options.flag);
  if (kind && !kind.success) {
    throw new ConfigError('--store', `must be memory or dynamodb, not '${options.flag}'`);
  }
  const env = parseEnv(envSchema, options.env);
  const endpoint = env.AWS_ENDPOINT_URL_DYNAMODB;
  const local = !isAwsEndpoint(endpoint);
  return {
    kind: kind?.data ?? env.SWITCHYARD_STORE ?? 'memory',
    tableName: env.SWITCHYARD_TABLE ?? DEFAULT_BREAKER_TABLE,
    defaultTable: env.SWITCHYARD_TABLE === undefined,
    cacheMs: env.SWITCHYARD_BREAKER_CACHE_MS ?? 0,
    connection: { endpoint, ...awsClientIdentity(env, local) },
  };
}

/** A store ready to use, with a line for the start-up message. */
export interface SelectedBreakerStore {
  store: BreakerStore;
  /** e.g. `dynamodb table 'switchyard-breakers' (default name) at http://127.0.0.1:4567, read cache off`. */
  description: string;
  /** Releases the store's connections. */
  close(): void;
  /** The last-resort answer cache on the same table (DynamoDB only; memory: each process keeps its own). */
  answers?: ((settings: AnswerCacheSettings) => AnswerCache) | undefined;
}

/**
 * Builds the store the settings name. With `ensureTable`, a DynamoDB table on a local endpoint
 * is created when missing (in AWS the CDK stack owns the table and nothing is created).
 */
export async function selectBreakerStore(
  settings: BreakerStoreSettings,
  options: { ensureTable?: boolean } = {},
): Promise<SelectedBreakerStore> {
  if (settings.kind === 'memory') {
    return { store: createMemoryBreakerStore(), description: 'memory', close() {} };
  }
  const { connection, tableName } = settings;
  const client = createBreakerDynamoDbClient(connection);
  let created = false;
  try {
    if (options.ensureTable && !isAwsEndpoint(connection.endpoint)) {
      created = (await ensureBreakerTable(client, tableName)) === 'created';
    }
  } catch (error) {
    client.destroy();
    const why = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw new SwitchyardError(
      `cannot prepare breaker table '${tableName}' at ${connection.endpoint}: ${why}`,
      {
        cause: error,
      },
    );
  }
  const documents = createDocumentClient(client);
  const store = createDynamoDbBreakerStore({ client: documents, tableName });
  const table = `dynamodb table '${tableName}'${settings.defaultTable ? ' (default name; set SWITCHYARD_TABLE)' : ''}`;
  const where = connection.endpoint
    ? `at ${connection.endpoint}${created ? ' (table created)' : ''}`
    : 'on AWS';
  const cache = settings.cacheMs > 0 ? `read cache ${settings.cacheMs} ms` : 'read cache off';
  return {
    store: withReadCache(store, settings.cacheMs),
    description: `${table} ${where}, ${cache}`,
    close: () => client.destroy(),
    answers: (cache) => createDynamoDbAnswerCache({ client: documents, tableName, maxBytes: cache.maxBytes }),
  };
}
