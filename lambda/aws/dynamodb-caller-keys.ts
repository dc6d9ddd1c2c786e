import { timingSafeEqual } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Logger } from '../core/logger.js';
import { type CallerKeyDirectory, CallerKeysUnavailableError } from '../http/caller-auth.js';
import { readAuthoritative, readKeyName } from './caller-key-table.js';
import { type RetryTiming, retryWithinBudget } from './jittered-retry.js';

/** Settings of `createDynamoDbCallerKeys`; times in ms. */
export interface DynamoDbCallerKeysOptions extends RetryTiming {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** How long a found key is trusted before it is read again, in ms: `aws.callerKeyCacheMs`. */
  hitMs: number;
  /** How long an unknown hash stays unknown before it is read again, in ms: `aws.callerKeyMissCacheMs`. */
  missMs: number;
  /** How long a found key keeps working while the table cannot be read, in ms: `aws.callerKeysMaxStaleMs`. */
  maxStaleMs: number;
  /** The most one lookup spends reading (retries with jittered backoff included), in ms: `aws.keyReadBudgetMs`. */
  readBudgetMs: number;
  /** Entries kept per container (found and unknown together); the oldest goes first. Default 10000. */
  maxEntries?: number | undefined;
  /**
   * The key set of the SSM parameter `<prefix>/caller-keys`, consulted on a miss only while the table
   * has no `meta` item (before `switchyard keys migrate --apply`). Throws when SSM cannot be read.
   */
  legacy?: (() => Promise<ReadonlyMap<string, string>>) | undefined;
  log: Logger;
}

interface Entry {
  /** The key's name; undefined: no key has this hash. */
  name: string | undefined;
  /** When the entry was read, ms since the epoch. */
  readAt: number;
  /** Until when it is used without a read, ms since the epoch. */
  until: number;
}

/** The name in `hashes` whose value equals `hash`, comparing every entry in constant time. */
function findByHash(hashes: ReadonlyMap<string, string>, hash: string): string | undefined {
  const wanted = Buffer.from(hash, 'hex');
  let found: string | undefined;
  for (const [name, stored] of hashes) {
    const bytes = Buffer.from(stored, 'hex');
    const equal = bytes.length === wanted.length && timingSafeEqual(bytes, wanted);
    if (equal && found === undefined) found = name;
  }
  return found;
}

/**
 * Caller keys in the stack's DynamoDB table, read on first use of each key and cached per
 * container: a found key for `hitMs` (a revoked key stops working within that time), an unknown
 * one for `missMs` (a flood of wrong keys costs one read per key per `missMs`). A read is retried
 * with jittered backoff within `readBudgetMs`; when it still fails, a key found before keeps
 * working for `maxStaleMs` after its last read, and any other gets `CallerKeysUnavailableError`
 * (503 with `Retry-After`, never 401). Concurrent lookups of one hash share one read. The number of
 * keys has no limit: nothing reads the whole set.
 */
export function createDynamoDbCallerKeys(options: DynamoDbCallerKeysOptions): CallerKeyDirectory {
  const { client, tableName, clock, log } = options;
  const maxEntries = options.maxEntries ?? 10_000;
  const entries = new Map<string, Entry>();
  const inflight = new Map<string, Promise<string | undefined>>();
  let authoritative = false;
  let markerCheckedUntil = 0;
  let warnedLegacy = false;

  const within = <T>(read: (signal: AbortSignal) => Promise<T>) =>
    retryWithinBudget((remainingMs) => read(AbortSignal.timeout(remainingMs)), {
      ...options,
      deadlineAt: clock.now() + options.readBudgetMs,
    });

  const remember = (hash: string, name: string | undefined) => {
    const now = clock.now();
    entries.delete(hash);
    entries.set(hash, {
      name,
      readAt: now,
      until: now + (name === undefined ? options.missMs : options.hitMs),
    });
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
  };

  /** Before migration a miss may still be a key of the SSM parameter. */
  const fromLegacy = async (hash: string): Promise<string | undefined> => {
    if (!options.legacy || authoritative) return undefined;
    if (clock.now() >= markerCheckedUntil) {
      authoritative = await within((signal) => readAuthoritative(client, tableName, signal));
      markerCheckedUntil = clock.now() + options.hitMs;
      if (authoritative) return undefined;
    }
    const name = findByHash(await options.legacy(), hash);
    if (name !== undefined && !warnedLegacy) {
      warnedLegacy = true;
      log.warn('caller key found only in the SSM parameter; run switchyard keys migrate --apply', {
        table: tableName,
        name,
      });
    }
    return name;
  };

  const lookup = async (hash: string): Promise<string | undefined> => {
    try {
      const name =
        (await within((signal) => readKeyName(client, tableName, hash, signal))) ?? (await fromLegacy(hash));
      remember(hash, name);
      return name;
    } catch (error) {
      const held = entries.get(hash);
      if (held?.name !== undefined && clock.now() - held.readAt <= options.maxStaleMs) {
        log.warn('caller keys table unreadable; the key found before keeps working', {
          table: tableName,
          name: held.name,
          ageMs: clock.now() - held.readAt,
          error: error instanceof Error ? error.name : 'unknown',
        });
        return held.name;
      }
      throw new CallerKeysUnavailableError(
        `the caller keys table ${tableName} could not be read`,
        Math.min(5, options.readBudgetMs / 1000),
        { cause: error },
      );
    }
  };

  return {
    async nameOf(hash) {
      const held = entries.get(hash);
      if (held && clock.now() < held.until) return held.name;
      let pending = inflight.get(hash);
      if (!pending) {
        pending = lookup(hash).finally(() => inflight.delete(hash));
        inflight.set(hash, pending);
      }
      return pending;
    },
  };
}
