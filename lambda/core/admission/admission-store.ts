/**
 * Where admission counters live: one counter per (scope, name, limit type), split into buckets
 * (a 10-second slice of the sliding minute, or a UTC day). Memory locally, DynamoDB shared
 * (docs/design-notes.md#admission-counters-in-dynamodb).
 */

/** One bucket of one counter, and when the store may forget it. */
export interface CounterSlot {
  /** e.g. `key:alice:spend`. */
  counter: string;
  /** e.g. `000001764567600000` (a slice's start in ms, zero-padded so buckets sort) or `day:2026-12-01`. */
  bucket: string;
  /** When the bucket no longer matters, in ms since the epoch (the store's TTL). */
  expiresAt: number;
}

export interface AdmissionStore {
  /** Every live bucket of `counter` from `fromBucket` on (by sort order), bucket → value. */
  read(counter: string, fromBucket: string, now: number): Promise<Map<string, number>>;
  /**
   * Atomically adds `amount` to the bucket when its value stays at or below `ceiling` afterwards,
   * and returns the new value; returns undefined (and changes nothing) when it would not. One write.
   */
  take(slot: CounterSlot, amount: number, ceiling: number): Promise<number | undefined>;
  /** Adds `delta` (negative to give back) without a condition: settlement and rollback. One write. */
  add(slot: CounterSlot, delta: number): Promise<void>;
}
