import * as z from 'zod';
import type { BreakerPolicy } from '../core/breaker/breaker-policy.js';
import type { BreakerSnapshot, BucketCounts } from '../core/breaker/breaker-state.js';
import { rampEnd } from '../core/breaker/recovery.js';
import { BREAKER_TABLE_KEYS } from './dynamodb-breaker-keys.js';

/**
 * Attribute names of a breaker item besides the keys. Window buckets are top-level number
 * attributes named after the bucket's start (`a_<startMs>` attempts, `f_<startMs>` failures):
 * top-level, because `ADD` creates a missing top-level number but cannot create a map entry
 * whose parent map does not exist yet, and a second expression to create the map would cost a
 * second write.
 */
export const BREAKER_ATTRIBUTES = {
  openUntil: 'openUntil',
  openedAt: 'openedAt',
  openReason: 'openReason',
  consecutive429: 'consecutive429',
  coolUntil: 'coolUntil',
  /** Start (ms) of the bucket of the last recorded sample: how long the item has been quiet. */
  lastBucket: 'lastBucket',
  /** Bumped by every write; the rare read-modify-write path uses it for optimistic locking. */
  rev: 'rev',
  /** Recovery `ramp` (docs/concepts.md#breaker-recovery): the opening recovers through probes. */
  probing: 'probing',
  probeStreak: 'probeStreak',
  probeAt: 'probeAt',
  rampStart: 'rampStart',
  rampStepMs: 'rampStepMs',
  /** A list of numbers: the ramp's percent steps, stored with its start. */
  rampSteps: 'rampSteps',
} as const;

const ATTEMPTS_PREFIX = 'a_';
const FAILURES_PREFIX = 'f_';

/** Name of the attempts counter of the bucket that starts at `start` (ms). */
export const attemptsAttribute = (start: number): string => `${ATTEMPTS_PREFIX}${start}`;
/** Name of the failures counter of the bucket that starts at `start` (ms). */
export const failuresAttribute = (start: number): string => `${FAILURES_PREFIX}${start}`;

/**
 * Seconds an item outlives the last thing that matters in it, so that a clock a little behind
 * another container's never sees a live item as expired.
 */
export const TTL_MARGIN_SECONDS = 60;

/** A breaker item as the document client returns it. */
export type BreakerItem = Record<string, unknown>;

const OPEN_REASONS = ['consecutive_429', 'failure_rate', 'upstream_auth', 'model_not_found'] as const;

// Read at the edge: an item written by another version (or by hand) must not crash the router.
const itemSchema = z.looseObject({
  [BREAKER_ATTRIBUTES.openUntil]: z.number().optional().catch(undefined),
  [BREAKER_ATTRIBUTES.openedAt]: z.number().optional().catch(undefined),
  [BREAKER_ATTRIBUTES.openReason]: z.enum(OPEN_REASONS).optional().catch(undefined),
  [BREAKER_ATTRIBUTES.consecutive429]: z.number().int().nonnegative().catch(0),
  [BREAKER_ATTRIBUTES.coolUntil]: z.number().optional().catch(undefined),
  [BREAKER_TABLE_KEYS.ttlAttribute]: z.number().optional().catch(undefined),
  [BREAKER_ATTRIBUTES.rev]: z.number().optional().catch(undefined),
  [BREAKER_ATTRIBUTES.probing]: z.boolean().optional().catch(undefined),
  [BREAKER_ATTRIBUTES.probeStreak]: z.number().int().nonnegative().optional().catch(undefined),
  [BREAKER_ATTRIBUTES.probeAt]: z.number().optional().catch(undefined),
  [BREAKER_ATTRIBUTES.rampStart]: z.number().optional().catch(undefined),
  [BREAKER_ATTRIBUTES.rampStepMs]: z.number().positive().optional().catch(undefined),
  [BREAKER_ATTRIBUTES.rampSteps]: z.array(z.number()).min(1).optional().catch(undefined),
});

/** The recovery fields of a snapshot, in the order the item and the snapshot name them. */
const RECOVERY_FIELDS = [
  'probing',
  'probeStreak',
  'probeAt',
  'rampStart',
  'rampStepMs',
  'rampSteps',
] as const;

/**
 * The latest time (epoch seconds) anything written at `at` can still matter: a window sample
 * counts for `windowMs`, an opening lasts `openMs`, and cooling is capped at `openMs`.
 */
export function expiresAtFor(at: number, policy: Pick<BreakerPolicy, 'windowMs' | 'openMs'>): number {
  return Math.ceil((at + Math.max(policy.windowMs, policy.openMs)) / 1000) + TTL_MARGIN_SECONDS;
}

/**
 * True when the item's TTL has passed. DynamoDB deletes such items lazily (often hours later)
 * and dynalite never does, so every reader and writer checks this itself.
 */
export function isExpired(item: BreakerItem, now: number): boolean {
  const expiresAt = item[BREAKER_TABLE_KEYS.ttlAttribute];
  return typeof expiresAt === 'number' && expiresAt * 1000 <= now;
}

/** The item's `rev`, or undefined for an item no Switchyard write has touched. */
export function itemRev(item: BreakerItem): number | undefined {
  return itemSchema.parse(item).rev;
}

/**
 * The snapshot an item holds. Buckets starting at or before `windowFloor` (ms) are left out, as
 * `applySample` leaves them out of the memory store; without a floor every bucket is kept and
 * `windowCounts` ignores the old ones.
 */
export function itemToSnapshot(item: BreakerItem, windowFloor = Number.NEGATIVE_INFINITY): BreakerSnapshot {
  const fixed = itemSchema.parse(item);
  const buckets: Record<string, BucketCounts> = {};
  for (const [name, value] of Object.entries(item)) {
    if (!name.startsWith(ATTEMPTS_PREFIX) || typeof value !== 'number') continue;
    const start = Number(name.slice(ATTEMPTS_PREFIX.length));
    if (!Number.isFinite(start) || start <= windowFloor) continue;
    const failures = item[failuresAttribute(start)];
    buckets[String(start)] = { attempts: value, failures: typeof failures === 'number' ? failures : 0 };
  }
  const snapshot: BreakerSnapshot = { consecutive429: fixed.consecutive429, buckets };
  if (fixed.openUntil !== undefined) snapshot.openUntil = fixed.openUntil;
  if (fixed.openedAt !== undefined) snapshot.openedAt = fixed.openedAt;
  if (fixed.openReason !== undefined) snapshot.openReason = fixed.openReason;
  if (fixed.coolUntil !== undefined) snapshot.coolUntil = fixed.coolUntil;
  for (const field of RECOVERY_FIELDS) {
    const value = fixed[field];
    if (value !== undefined) Object.assign(snapshot, { [field]: value });
  }
  return snapshot;
}

/** Where an item lives and its bookkeeping attributes, for a whole-item write. */
export interface ItemMeta {
  pipeline: string;
  model: string;
  /** Start (ms) of the bucket of the sample being written. */
  lastBucket: number;
  rev: number;
  /** The policy of the write, for the TTL. */
  policy: Pick<BreakerPolicy, 'windowMs' | 'openMs'>;
  /** When the write happens (ms since epoch). */
  now: number;
}

/** A whole item holding `snapshot`, for the read-modify-write path. */
export function snapshotToItem(snapshot: BreakerSnapshot, meta: ItemMeta): BreakerItem {
  const item: BreakerItem = {
    [BREAKER_TABLE_KEYS.partitionKey]: meta.pipeline,
    [BREAKER_TABLE_KEYS.sortKey]: meta.model,
    [BREAKER_ATTRIBUTES.consecutive429]: snapshot.consecutive429,
    [BREAKER_ATTRIBUTES.lastBucket]: meta.lastBucket,
    [BREAKER_ATTRIBUTES.rev]: meta.rev,
  };
  const optional = {
    [BREAKER_ATTRIBUTES.openUntil]: snapshot.openUntil,
    [BREAKER_ATTRIBUTES.openedAt]: snapshot.openedAt,
    [BREAKER_ATTRIBUTES.openReason]: snapshot.openReason,
    [BREAKER_ATTRIBUTES.coolUntil]: snapshot.coolUntil,
    ...Object.fromEntries(RECOVERY_FIELDS.map((field) => [field, snapshot[field]])),
  };
  for (const [name, value] of Object.entries(optional)) if (value !== undefined) item[name] = value;
  for (const [start, counts] of Object.entries(snapshot.buckets)) {
    item[attemptsAttribute(Number(start))] = counts.attempts;
    if (counts.failures > 0) item[failuresAttribute(Number(start))] = counts.failures;
  }
  const until = (ms: number | undefined) =>
    ms === undefined ? 0 : Math.ceil(ms / 1000) + TTL_MARGIN_SECONDS;
  item[BREAKER_TABLE_KEYS.ttlAttribute] = Math.max(
    expiresAtFor(meta.now, meta.policy),
    until(snapshot.openUntil),
    until(snapshot.coolUntil),
    until(rampEnd(snapshot)),
  );
  return item;
}

/** The condition of a put that succeeds only on the item version it read (the read-modify-write path). */
export interface PutCondition {
  ConditionExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

export function unchangedSince(item: BreakerItem | undefined, rev: number | undefined): PutCondition {
  if (!item) {
    return {
      ConditionExpression: 'attribute_not_exists(#pk)',
      ExpressionAttributeNames: { '#pk': BREAKER_TABLE_KEYS.partitionKey },
    };
  }
  if (rev === undefined) {
    return {
      ConditionExpression: 'attribute_not_exists(#rev)',
      ExpressionAttributeNames: { '#rev': BREAKER_ATTRIBUTES.rev },
    };
  }
  return {
    ConditionExpression: '#rev = :rev',
    ExpressionAttributeNames: { '#rev': BREAKER_ATTRIBUTES.rev },
    ExpressionAttributeValues: { ':rev': rev },
  };
}
