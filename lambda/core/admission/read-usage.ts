import type { AdmissionStore } from './admission-store.js';
import {
  dayBucket,
  firstLiveSlice,
  nextUtcMidnight,
  RATE_WINDOW_MS,
  sliceBucket,
  utcDay,
} from './admission-windows.js';
import { counterName, NANO_PER_USD, type PlannedLimit } from './limit-plan.js';

/** One limit and what it holds now (`switchyard usage`, `GET /v1/usage`). */
export interface UsageLine {
  scope: PlannedLimit['scope'];
  name: string;
  kind: PlannedLimit['kind'];
  /** The config field that set the limit. */
  field: string;
  /** `minute` (sliding) or `day` (UTC). */
  window: 'minute' | 'day';
  /** The day of a spend line, `2026-12-01`. */
  day: string | null;
  /** The limit: requests, tokens, or US$. */
  limit: number;
  /** Used in the window (reservations of requests still running included): requests, tokens, or US$. */
  used: number;
  remaining: number;
  /** When a spend line's day ends (ISO); null for a sliding minute. */
  resetsAt: string | null;
}

/**
 * What each limit holds: spend for `day` (default today); requests and tokens in the sliding
 * minute, today only (a past minute is gone). One store read per limit.
 */
export async function readUsage(
  store: AdmissionStore,
  limits: readonly PlannedLimit[],
  now: number,
  day: string = utcDay(now),
): Promise<UsageLine[]> {
  const today = day === utcDay(now);
  const wanted = limits.filter((l) => l.kind === 'spend' || today);
  return Promise.all(
    wanted.map(async (limit): Promise<UsageLine> => {
      const base = { scope: limit.scope, name: limit.name, kind: limit.kind, field: limit.field };
      if (limit.kind === 'spend') {
        const bucket = dayBucket(day);
        const found = await store.read(counterName(limit), bucket, now);
        const used = (found.get(bucket) ?? 0) / NANO_PER_USD;
        const cap = limit.cap / NANO_PER_USD;
        const ends = nextUtcMidnight(Date.parse(`${day}T00:00:00Z`));
        return {
          ...base,
          window: 'day',
          day,
          limit: cap,
          used,
          remaining: Math.max(0, cap - used),
          resetsAt: new Date(ends).toISOString(),
        };
      }
      const slices = await store.read(counterName(limit), sliceBucket(firstLiveSlice(now)), now);
      let used = 0;
      for (const [bucket, value] of slices) if (Number(bucket) + RATE_WINDOW_MS > now) used += value;
      return {
        ...base,
        window: 'minute',
        day: null,
        limit: limit.cap,
        used,
        remaining: Math.max(0, limit.cap - used),
        resetsAt: null,
      };
    }),
  );
}
