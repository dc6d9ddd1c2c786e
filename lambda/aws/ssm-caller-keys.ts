import {
  GetParameterCommand,
  ParameterNotFound,
  PutParameterCommand,
  type SSMClient,
} from '@aws-sdk/client-ssm';
import type { z } from 'zod';
import { authSchema } from '../core/catalog/config-schema.js';
import { SwitchyardError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { Clock } from '../core/time.js';
import type { CallerKeySource } from '../http/caller-auth.js';

/** The value of `<ssmPrefix>/caller-keys`: a JSON object, key name → lowercase hex SHA-256. */
export const callerKeysValueSchema = authSchema.shape.keys;
export type CallerKeys = z.infer<typeof callerKeysValueSchema>;

/** `/switchyard` → `/switchyard/caller-keys` (a SecureString). */
export function callerKeysParameterName(ssmPrefix: string): string {
  return `${ssmPrefix}/caller-keys`;
}

/** The caller-keys parameter holds something other than the expected JSON object. */
export class CallerKeysValueError extends SwitchyardError {
  readonly parameter: string;
  constructor(parameter: string, message: string, options?: ErrorOptions) {
    super(`${parameter}: ${message}`, options);
    this.name = 'CallerKeysValueError';
    this.parameter = parameter;
  }
}

/** The parameter's keys and version; `version` is undefined when the parameter does not exist. */
export interface CallerKeysParameter {
  keys: CallerKeys;
  version: number | undefined;
}

/**
 * Reads and validates the caller-keys parameter (decrypted). A missing parameter is no keys;
 * a value that is not the expected JSON throws `CallerKeysValueError`; SSM errors pass through.
 */
export async function readCallerKeysParameter(client: SSMClient, name: string): Promise<CallerKeysParameter> {
  let value: string | undefined;
  let version: number | undefined;
  try {
    const out = await client.send(new GetParameterCommand({ Name: name, WithDecryption: true }));
    value = out.Parameter?.Value;
    version = out.Parameter?.Version;
  } catch (error) {
    if (error instanceof ParameterNotFound) return { keys: {}, version: undefined };
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(value ?? '');
  } catch (error) {
    throw new CallerKeysValueError(name, 'is not JSON', { cause: error });
  }
  const parsed = callerKeysValueSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `at '${issue.path.join('.')}' ` : '';
    throw new CallerKeysValueError(
      name,
      `${where}${issue?.message ?? 'invalid'} (expected {"<name>": "<sha256 hex>"})`,
    );
  }
  return { keys: parsed.data, version };
}

/** Writes the whole key set as a new SecureString version and returns that version. */
export async function writeCallerKeysParameter(
  client: SSMClient,
  name: string,
  keys: CallerKeys,
  description: string,
): Promise<number> {
  const out = await client.send(
    new PutParameterCommand({
      Name: name,
      Value: JSON.stringify(keys),
      Type: 'SecureString',
      Overwrite: true,
      Description: description.slice(0, 1024),
    }),
  );
  return out.Version ?? 0;
}

export interface SsmCallerKeysOptions {
  client: SSMClient;
  /** Usually `callerKeysParameterName(ssmPrefix)`. */
  parameterName: string;
  log: Logger;
  /** How long a key set read from SSM is trusted, in ms. Default 30000: a revoked key stops working within it. */
  cacheMs?: number | undefined;
  /** After a failed read, how long before the next try, in ms. Default 1000. */
  retryMs?: number | undefined;
  /** Default: the system clock. */
  clock?: Clock | undefined;
}

/** Default trust period of a key set read from SSM, in ms (30 s). */
export const DEFAULT_CALLER_KEYS_CACHE_MS = 30_000;

/**
 * Caller keys from SSM, cached for `cacheMs`; concurrent requests share one read. On a failed
 * read the last good set stays in force (and the failure is logged); with no good set yet every
 * caller is refused: it fails closed, never open. Never throws.
 */
export function createSsmCallerKeys(options: SsmCallerKeysOptions): CallerKeySource {
  const { client, parameterName, log } = options;
  const cacheMs = options.cacheMs ?? DEFAULT_CALLER_KEYS_CACHE_MS;
  const retryMs = Math.min(options.retryMs ?? 1_000, cacheMs);
  const now = () => (options.clock ? options.clock.now() : Date.now());
  let good: ReadonlyMap<string, string> | undefined;
  let nextReadAt = 0;
  let inflight: Promise<ReadonlyMap<string, string>> | undefined;

  const refresh = async (): Promise<ReadonlyMap<string, string>> => {
    try {
      const { keys, version } = await readCallerKeysParameter(client, parameterName);
      good = new Map(Object.entries(keys));
      nextReadAt = now() + cacheMs;
      if (version === undefined || good.size === 0)
        log.error('no caller keys in SSM; every caller is refused', { parameter: parameterName });
    } catch (error) {
      nextReadAt = now() + retryMs;
      log.error(
        good
          ? 'caller keys unreadable; keeping the last good set'
          : 'caller keys unreadable; refusing callers',
        {
          parameter: parameterName,
          error: error instanceof Error ? error.name : String(error),
          detail: error instanceof CallerKeysValueError ? error.message : undefined,
        },
      );
    }
    return good ?? new Map();
  };

  return {
    hashes: async () => {
      if (good && now() < nextReadAt) return good;
      if (!good && now() < nextReadAt) return new Map();
      inflight ??= refresh().finally(() => {
        inflight = undefined;
      });
      return inflight;
    },
  };
}
