/** The time buckets of admission counters: a sliding minute in slices, and the UTC day. */

/** Length of a rate limit's sliding window, in ms: one minute. */
export const RATE_WINDOW_MS = 60_000;
/**
 * Length of one slice of the window, in ms. A rate counter keeps one bucket per slice and counts
 * the slices that started within the last minute, so room comes back slice by slice.
 */
export const RATE_SLICE_MS = 10_000;
/** How long a day bucket is kept after its day, in ms (40 days), for `switchyard usage --day`. */
export const DAY_RETENTION_MS = 40 * 86_400_000;

/** The start of the slice holding `now`, in ms. */
export function sliceStart(now: number): number {
  return now - (now % RATE_SLICE_MS);
}

/** A slice's bucket name: its start in ms, zero-padded to 18 digits so that names sort as numbers. */
export function sliceBucket(start: number): string {
  return String(start).padStart(18, '0');
}

/** The oldest slice still inside the window that holds `now`. */
export function firstLiveSlice(now: number): number {
  return sliceStart(now) - RATE_WINDOW_MS + RATE_SLICE_MS;
}

/** `2026-12-01` for any time of that UTC day. */
export function utcDay(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}

/** The bucket name of a UTC day. */
export function dayBucket(day: string): string {
  return `day:${day}`;
}

/** The next UTC midnight after `now`, in ms. */
export function nextUtcMidnight(now: number): number {
  return now - (now % 86_400_000) + 86_400_000;
}
