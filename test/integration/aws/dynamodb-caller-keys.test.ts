import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { markAuthoritative, putCallerKey, revokeCallerKey } from '../../../lambda/aws/caller-key-admin.js';
import { createDynamoDbCallerKeys } from '../../../lambda/aws/dynamodb-caller-keys.js';
import { silentLogger } from '../../../lambda/core/logger.js';
import { CallerKeysUnavailableError, sha256Hex } from '../../../lambda/http/caller-auth.js';
import { dynaliteDocuments, seedCallerKeyTable } from '../../helpers/caller-key-table.js';
import { type RunningDynalite, startDynalite } from '../../helpers/dynalite.js';
import { createFakeClock, type FakeClock } from '../../helpers/fake-clock.js';

const HIT_MS = 30_000;
const MISS_MS = 5_000;
const MAX_STALE_MS = 300_000;
const KEY = 'sy-the-one-key-of-these-tests-000000000';
const HASH = sha256Hex(KEY);

let dynalite: RunningDynalite;
let db: ReturnType<typeof dynaliteDocuments>;
let clock: FakeClock;
let table: string;
let reads: number;
/** Throttling answers still to give before DynamoDB is asked again. */
let throttles: number;
let tableNo = 0;

/** The document client with a counter and scriptable throttling in front of dynalite. */
const counted = (): DynamoDBDocumentClient =>
  ({
    send: async (command: Parameters<DynamoDBDocumentClient['send']>[0], options?: unknown) => {
      reads += 1;
      if (throttles > 0) {
        throttles -= 1;
        throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
      }
      return db.documents.send(command, options as never);
    },
  }) as unknown as DynamoDBDocumentClient;

const keysWith = (extra: Partial<Parameters<typeof createDynamoDbCallerKeys>[0]> = {}) =>
  createDynamoDbCallerKeys({
    client: counted(),
    tableName: table,
    hitMs: HIT_MS,
    missMs: MISS_MS,
    maxStaleMs: MAX_STALE_MS,
    readBudgetMs: 1_000,
    clock,
    random: () => 0.5,
    sleep: async (ms) => clock.advance(ms),
    log: silentLogger,
    ...extra,
  });

beforeAll(async () => {
  dynalite = await startDynalite();
  db = dynaliteDocuments(dynalite.endpoint);
});
afterAll(async () => {
  db.destroy();
  await dynalite.stop();
});
beforeEach(async () => {
  tableNo += 1;
  table = `caller-keys-${tableNo}`;
  await seedCallerKeyTable(dynalite.endpoint, table, { app: KEY });
  clock = createFakeClock();
  reads = 0;
  throttles = 0;
});

describe('caller keys in DynamoDB', () => {
  it('finds a key by its SHA-256 with one read and trusts it until exactly hitMs later', async () => {
    const keys = keysWith();
    expect(await keys.nameOf(HASH)).toBe('app');
    expect(reads).toBe(1);
    clock.advance(HIT_MS - 1);
    expect(await keys.nameOf(HASH)).toBe('app');
    expect(reads).toBe(1);
    clock.advance(1);
    expect(await keys.nameOf(HASH)).toBe('app');
    expect(reads).toBe(2);
  });

  it('remembers an unknown hash for exactly missMs', async () => {
    const keys = keysWith();
    const unknown = sha256Hex('sy-unknown');
    expect(await keys.nameOf(unknown)).toBeUndefined();
    clock.advance(MISS_MS - 1);
    expect(await keys.nameOf(unknown)).toBeUndefined();
    expect(reads).toBe(1);
    clock.advance(1);
    await keys.nameOf(unknown);
    expect(reads).toBe(2);
  });

  it('stops accepting a revoked key once its cached hit expires', async () => {
    const keys = keysWith();
    expect(await keys.nameOf(HASH)).toBe('app');
    await revokeCallerKey(db.documents, table, 'app');
    expect(await keys.nameOf(HASH)).toBe('app');
    clock.advance(HIT_MS);
    expect(await keys.nameOf(HASH)).toBeUndefined();
  });

  it('retries a throttled read with backoff and answers within the budget', async () => {
    throttles = 3;
    const keys = keysWith();
    expect(await keys.nameOf(HASH)).toBe('app');
    expect(reads).toBe(4);
  });

  it('keeps a key found before working while the table fails, up to maxStaleMs after its last read', async () => {
    const keys = keysWith();
    await keys.nameOf(HASH);
    const readAt = clock.now();
    throttles = 1_000_000;
    clock.set(readAt + MAX_STALE_MS - 1_000);
    // Part of the budget (1 s) is spent retrying; the key is still within maxStaleMs.
    expect(await keys.nameOf(HASH)).toBe('app');
    expect(clock.now() - readAt).toBeLessThanOrEqual(MAX_STALE_MS);
    clock.set(readAt + MAX_STALE_MS + 1);
    await expect(keys.nameOf(HASH)).rejects.toBeInstanceOf(CallerKeysUnavailableError);
  });

  it('answers CallerKeysUnavailableError (503), never undefined (401), for a key it cannot look up', async () => {
    throttles = 1_000_000;
    const error = await keysWith()
      .nameOf(HASH)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CallerKeysUnavailableError);
    expect((error as CallerKeysUnavailableError).retryAfterSeconds).toBe(1);
  });

  it('shares one read between concurrent lookups of one hash', async () => {
    const keys = keysWith();
    const names = await Promise.all([keys.nameOf(HASH), keys.nameOf(HASH), keys.nameOf(HASH)]);
    expect(names).toEqual(['app', 'app', 'app']);
    expect(reads).toBe(1);
  });

  it('holds at most maxEntries entries, dropping the oldest first', async () => {
    const keys = keysWith({ maxEntries: 2 });
    await keys.nameOf(HASH);
    await keys.nameOf(sha256Hex('x'));
    await keys.nameOf(sha256Hex('y'));
    expect(reads).toBe(3);
    await keys.nameOf(HASH);
    expect(reads).toBe(4);
  });
});

describe('caller keys in DynamoDB before the migration', () => {
  const legacyKey = 'sy-still-only-in-ssm-000000000000000000';

  it('accepts a key of the SSM parameter on a miss while the table has no meta item', async () => {
    table = `caller-keys-legacy-${tableNo}`;
    await seedCallerKeyTable(dynalite.endpoint, table, {}, { authoritative: false });
    const keys = keysWith({ legacy: async () => new Map([['old-app', sha256Hex(legacyKey)]]) });
    expect(await keys.nameOf(sha256Hex(legacyKey))).toBe('old-app');
    expect(await keys.nameOf(sha256Hex('sy-neither'))).toBeUndefined();
  });

  it('never consults SSM once the table holds its meta item', async () => {
    let consulted = 0;
    const keys = keysWith({
      legacy: async () => {
        consulted += 1;
        return new Map([['old-app', sha256Hex(legacyKey)]]);
      },
    });
    expect(await keys.nameOf(sha256Hex(legacyKey))).toBeUndefined();
    expect(consulted).toBe(0);
  });

  it('answers 503 for a miss it cannot settle because SSM is unreadable before the migration', async () => {
    table = `caller-keys-legacy-b-${tableNo}`;
    await seedCallerKeyTable(dynalite.endpoint, table, {}, { authoritative: false });
    const keys = keysWith({
      legacy: async () => {
        throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
      },
    });
    await expect(keys.nameOf(sha256Hex(legacyKey))).rejects.toBeInstanceOf(CallerKeysUnavailableError);
  });
});

describe('caller keys table administration', () => {
  it('adds a key once: the same name and hash again is unchanged, another hash is a conflict unless replaced', async () => {
    const at = new Date(0).toISOString();
    const other = sha256Hex('sy-other');
    expect(await putCallerKey(db.documents, table, { name: 'app', hash: HASH, createdAt: at })).toBe(
      'unchanged',
    );
    await expect(
      putCallerKey(db.documents, table, { name: 'app', hash: other, createdAt: at }),
    ).rejects.toThrow("key 'app' exists with another hash");
    expect(
      await putCallerKey(db.documents, table, { name: 'app', hash: other, createdAt: at }, { replace: true }),
    ).toBe('replaced');
    const keys = keysWith();
    expect(await keys.nameOf(other)).toBe('app');
    expect(await keys.nameOf(HASH)).toBeUndefined();
  });

  it('refuses to store one key under two names', async () => {
    await expect(
      putCallerKey(db.documents, table, { name: 'twin', hash: HASH, createdAt: new Date(0).toISOString() }),
    ).rejects.toThrow('another name already holds the same key');
  });

  it('writes the meta item once', async () => {
    table = `caller-keys-meta-${tableNo}`;
    await seedCallerKeyTable(dynalite.endpoint, table, {}, { authoritative: false });
    expect(await markAuthoritative(db.documents, table, 'test', 'a')).toBe(true);
    expect(await markAuthoritative(db.documents, table, 'test', 'b')).toBe(false);
  });
});
