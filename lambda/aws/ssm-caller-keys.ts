import {
  GetParameterCommand,
  ParameterNotFound,
  PutParameterCommand,
  type SSMClient,
} from '@aws-sdk/client-ssm';
import type * as z from 'zod';
import { authSchema } from '../core/catalog/config-schema.js';
import { SwitchyardError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { Clock } from '../core/time.js';
import { type CallerKeySource, CallerKeysUnavailableError } from '../http/caller-auth.js';
import type { ParameterSnapshot, ParameterSource } from './parameter-snapshot.js';

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
  return { keys: parseCallerKeys(name, value ?? ''), version };
}

/**
 * Writes the whole key set as a new SecureString version and returns that version. The tier is
 * Intelligent-Tiering: Standard (free, 4 KB: about 50 keys with 8-character names) while the set
 * fits, Advanced (8 KB: about 100 keys, billed per parameter and per API call) once it does not —
 * see docs/design-notes.md#caller-keys-revocation-latency-and-failing-closed.
 */
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
      Tier: 'Intelligent-Tiering',
      Overwrite: true,
      Description: description.slice(0, 1024),
    }),
  );
  return out.Version ?? 0;
}

/** Parses the parameter's value; throws `CallerKeysValueError` naming the parameter. */
export function parseCallerKeys(name: string, value: string): CallerKeys {
  let json: unknown;
  try {
    json = JSON.parse(value);
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
  return parsed.data;
}

/** Settings of `createSsmCallerKeys`. */
export interface SsmCallerKeysOptions {
  /** The container's parameter snapshot; `<prefix>/caller-keys` is read from it. */
  source: ParameterSource;
  log: Logger;
  /**
   * The oldest a last good key set may be while SSM fails, in ms: config `aws.callerKeysMaxStaleMs`.
   * Older, callers get 503. Never less than the snapshot's own lifetime.
   */
  maxStaleMs: number;
  clock: Clock;
}

/**
 * Caller keys from the container's parameter snapshot. A revoked key stops working when the next
 * snapshot is read (within `chainCacheMs` ± jitter). While SSM fails, or the value stops being
 * valid, the last good set stays in force for at most `maxStaleMs`; with no good set (none ever
 * read, or too old) `hashes()` throws `CallerKeysUnavailableError`, which callers see as 503 with
 * `Retry-After` — it fails closed, never open, and never as a 401 that clients would not retry.
 * A parameter that exists in no snapshot is an empty set: every caller gets 401.
 */
export function createSsmCallerKeys(options: SsmCallerKeysOptions): CallerKeySource {
  const { source, log, clock } = options;
  const parameterName = callerKeysParameterName(source.prefix);
  const maxStaleMs = Math.max(options.maxStaleMs, source.maxLifetimeMs);
  let good: { hashes: ReadonlyMap<string, string>; readAt: number } | undefined;
  let seen: ParameterSnapshot | undefined;
  let loggedStale = false;

  const retryAfterSeconds = () => Math.max(0, source.nextReadAt() - clock.now()) / 1000;

  const take = (snapshot: ParameterSnapshot) => {
    if (snapshot === seen) return;
    seen = snapshot;
    const value = snapshot.values.get(parameterName);
    if (value === undefined) {
      good = { hashes: new Map(), readAt: snapshot.readAt };
      log.error('no caller keys in SSM; every caller is refused', { parameter: parameterName });
      return;
    }
    try {
      good = {
        hashes: new Map(Object.entries(parseCallerKeys(parameterName, value))),
        readAt: snapshot.readAt,
      };
      loggedStale = false;
      if (good.hashes.size === 0)
        log.error('no caller keys in SSM; every caller is refused', { parameter: parameterName });
    } catch (error) {
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
  };

  return {
    hashes: async () => {
      let snapshot: ParameterSnapshot;
      try {
        snapshot = await source.read();
      } catch (error) {
        throw new CallerKeysUnavailableError('no caller keys read from SSM yet', retryAfterSeconds(), {
          cause: error,
        });
      }
      take(snapshot);
      if (!good) throw new CallerKeysUnavailableError('no valid caller keys read yet', retryAfterSeconds());
      const ageMs = clock.now() - good.readAt;
      if (ageMs > maxStaleMs) {
        if (!loggedStale)
          log.error('caller keys too old; refusing callers', { parameter: parameterName, ageMs, maxStaleMs });
        loggedStale = true;
        throw new CallerKeysUnavailableError(
          `the last good caller keys are ${ageMs} ms old`,
          retryAfterSeconds(),
        );
      }
      return good.hashes;
    },
  };
}
