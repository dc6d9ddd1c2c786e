import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { SwitchyardError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { HttpEnv } from './http-env.js';
import { errorBody, errorResponse } from './openai-errors.js';

/**
 * Where the hashes of the caller keys come from: name → lowercase hex SHA-256 of the key.
 * Undefined means authentication is off, which only the local gateway does, and only when no key
 * is configured. An empty map refuses every caller (fail closed).
 */
export interface CallerKeySource {
  hashes(): Promise<ReadonlyMap<string, string> | undefined>;
}

/**
 * Caller keys looked up one presented key at a time, for a store too large (or too remote) to be
 * read whole: the DynamoDB caller-keys table in AWS. Authentication is always on.
 */
export interface CallerKeyDirectory {
  /**
   * The name of the key whose lowercase hex SHA-256 is `hash`; undefined when no key has it.
   * Throws `CallerKeysUnavailableError` when the store cannot say right now.
   */
  nameOf(hash: string): Promise<string | undefined>;
}

/** Either way of checking caller keys: the whole set at once, or one hash at a time. */
export type CallerKeyCheck = CallerKeySource | CallerKeyDirectory;

/**
 * The key source cannot say who may call right now (no good key set read yet, or the last good one
 * is too old): callers get 503 with `Retry-After`, never 401, so clients retry instead of giving up.
 */
export class CallerKeysUnavailableError extends SwitchyardError {
  /** Seconds a caller should wait before retrying (at least 1). */
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CallerKeysUnavailableError';
    this.retryAfterSeconds = Math.max(1, Math.ceil(retryAfterSeconds));
  }
}

/** `Retry-After` for a key source that failed without saying when to come back, in seconds. */
export const DEFAULT_KEYS_RETRY_AFTER_SECONDS = 5;

/** The lowercase hex SHA-256 of a caller key: what the config and SSM store instead of the key. */
export function sha256Hex(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

const DIGEST_BYTES = 32;
const NO_DIGEST = Buffer.alloc(DIGEST_BYTES);
/** Keys longer than this are refused before hashing; ours are 46 characters. */
const MAX_KEY_CHARS = 512;

/**
 * The name whose hash matches `key`, or undefined. Compares against every hash with
 * `timingSafeEqual` and never stops early, so the time taken says nothing about which hash, or
 * how much of one, matched.
 */
export function matchCallerKey(key: string, hashes: ReadonlyMap<string, string>): string | undefined {
  const presented = createHash('sha256').update(key, 'utf8').digest();
  let matched: string | undefined;
  for (const [name, hex] of hashes) {
    const stored = Buffer.from(hex, 'hex');
    const wellFormed = stored.length === DIGEST_BYTES;
    // A malformed hash still costs one comparison, so the loop's time does not depend on it.
    const equal = timingSafeEqual(presented, wellFormed ? stored : NO_DIGEST) && wellFormed;
    if (equal && matched === undefined) matched = name;
  }
  return matched;
}

/** `Authorization: Bearer <key>` (what every OpenAI client sends), else `x-api-key`. */
export function presentedKey(
  authorization: string | undefined,
  apiKey: string | undefined,
): string | undefined {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  const key = bearer ?? apiKey?.trim();
  return key ? key : undefined;
}

function unauthorized(message: string): Response {
  return errorResponse(401, errorBody(message, 'invalid_request_error', 'invalid_api_key'), {
    'www-authenticate': 'Bearer realm="switchyard"',
  });
}

/** 503 with `Retry-After`: the key source failed, so nobody can be told whether their key is good. */
function keysUnavailable(error: unknown, log: Logger | undefined): Response {
  const retryAfter =
    error instanceof CallerKeysUnavailableError ? error.retryAfterSeconds : DEFAULT_KEYS_RETRY_AFTER_SECONDS;
  log?.error('caller keys unavailable; request refused', {
    error: error instanceof Error ? error.name : String(error),
    reason: error instanceof CallerKeysUnavailableError ? error.message : undefined,
    retryAfterSeconds: retryAfter,
  });
  return errorResponse(
    503,
    errorBody('caller keys are unavailable; try again shortly', 'api_error', 'service_unavailable'),
    { 'retry-after': String(retryAfter) },
  );
}

/**
 * Hono middleware for `/v1/*`: 401 in the OpenAI envelope for a missing or wrong caller key, 503
 * with `Retry-After` when the key source itself fails. Neither the key nor any part of it is logged or echoed.
 * Sets `callerKeyName` for every caller it admits.
 */
export function callerAuth(
  source: CallerKeyCheck,
  options: { log?: Logger | undefined } = {},
): MiddlewareHandler<HttpEnv> {
  if ('nameOf' in source) return directoryAuth(source, options.log);
  return async (c, next) => {
    let hashes: ReadonlyMap<string, string> | undefined;
    try {
      hashes = await source.hashes();
    } catch (error) {
      return keysUnavailable(error, options.log);
    }
    if (hashes === undefined) return next();
    if (hashes.size === 0) {
      options.log?.warn('caller refused: no caller keys are configured', { path: c.req.path });
      return unauthorized('no caller key is accepted: this gateway has no caller keys configured');
    }

    const key = presentedKey(c.req.header('authorization'), c.req.header('x-api-key'));
    if (key === undefined) {
      options.log?.warn('caller refused: no key', { path: c.req.path });
      return unauthorized(
        "missing caller key: send 'Authorization: Bearer <key>' (the OpenAI client's apiKey) or 'x-api-key'",
      );
    }
    const name = key.length <= MAX_KEY_CHARS ? matchCallerKey(key, hashes) : undefined;
    if (name === undefined) {
      options.log?.warn('caller refused: unknown key', { path: c.req.path });
      return unauthorized('invalid caller key');
    }
    c.set('callerKeyName', name);
    return next();
  };
}

/** `callerAuth` over a directory: one lookup of the presented key's SHA-256. */
function directoryAuth(directory: CallerKeyDirectory, log: Logger | undefined): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const key = presentedKey(c.req.header('authorization'), c.req.header('x-api-key'));
    if (key === undefined) {
      log?.warn('caller refused: no key', { path: c.req.path });
      return unauthorized(
        "missing caller key: send 'Authorization: Bearer <key>' (the OpenAI client's apiKey) or 'x-api-key'",
      );
    }
    let name: string | undefined;
    try {
      name = key.length <= MAX_KEY_CHARS ? await directory.nameOf(sha256Hex(key)) : undefined;
    } catch (error) {
      return keysUnavailable(error, log);
    }
    if (name === undefined) {
      log?.warn('caller refused: unknown key', { path: c.req.path });
      return unauthorized('invalid caller key');
    }
    c.set('callerKeyName', name);
    return next();
  };
}
