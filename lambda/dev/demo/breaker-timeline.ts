/**
 * Breaker intervals, taken from the gateway's own breaker log events. `breaker opened` names the
 * (pipeline, model), the reason, `openUntil` and the recovery: a `window` opening lasts exactly
 * until `openUntil`; a `ramp` opening (docs/concepts.md#breaker-recovery) lasts until its first
 * probe (`breaker probe`), probing lasts until the ramp starts (`breaker ramping`, with its end)
 * and the ramp until its end, unless the breaker opens again first.
 */
import type { LogFields, Logger } from '../../core/logger.js';

/** Where a breaker was during an interval: open, probing (open, probes under way), ramping. */
export type BreakerIntervalPhase = 'open' | 'probing' | 'ramp';

/** One stretch of one breaker in one phase. */
export interface BreakerInterval {
  pipeline: string;
  model: string;
  phase: BreakerIntervalPhase;
  /** Why it opened: `consecutive_429`, `failure_rate`, `upstream_auth` or `model_not_found`. */
  reason: string;
  /** Ms after the run started. */
  startMs: number;
  /** Ms after the run started; `Infinity` while a ramp breaker waits for its next step. */
  endMs: number;
  /** A ramp's planned end (ms after the start): it ran its course when `endMs` is still this. */
  untilMs?: number;
}

/** The demo's logger and what it collected. */
export interface BreakerTimeline {
  /** Pass this to the gateway. */
  log: Logger;
  readonly intervals: readonly BreakerInterval[];
  /** Breakers open or probing at `tMs` (ms after the start). */
  openAt(tMs: number): BreakerInterval[];
  /** Ends every interval still waiting at `endMs` (ms after the start): call once the run is over. */
  close(endMs: number): void;
  /** Warnings and errors other than breaker events, by message, for the summary. */
  readonly otherEvents: ReadonlyMap<string, number>;
}

const time = (fields: LogFields | undefined, name: string) =>
  typeof fields?.[name] === 'string' ? Date.parse(fields[name] as string) : Number.NaN;

export function createBreakerTimeline(startedAt: number): BreakerTimeline {
  const intervals: BreakerInterval[] = [];
  // The latest interval of each breaker, so the next event can end it.
  const latest = new Map<string, BreakerInterval>();
  const otherEvents = new Map<string, number>();
  const note = (message: string) => otherEvents.set(message, (otherEvents.get(message) ?? 0) + 1);
  const begin = (fields: LogFields | undefined, phase: BreakerIntervalPhase, endAt: number) => {
    const key = `${String(fields?.pipeline)}\u0000${String(fields?.model)}`;
    const now = Date.now() - startedAt;
    const previous = latest.get(key);
    // Probes follow each other while probing: one interval for all of them.
    if (phase === 'probing' && previous?.phase === 'probing' && previous.endMs > now) return;
    if (previous && previous.endMs > now) previous.endMs = now;
    const interval: BreakerInterval = {
      pipeline: String(fields?.pipeline),
      model: String(fields?.model),
      phase,
      reason: previous && phase !== 'open' ? previous.reason : String(fields?.reason),
      startMs: now,
      endMs: endAt - startedAt,
      ...(phase === 'ramp' ? { untilMs: endAt - startedAt } : {}),
    };
    intervals.push(interval);
    latest.set(key, interval);
  };
  const onEvent = (message: string, fields?: LogFields) => {
    if (message === 'breaker opened' && !Number.isNaN(time(fields, 'openUntil'))) {
      const ramp = fields?.recovery === 'ramp';
      begin(fields, 'open', ramp ? Number.POSITIVE_INFINITY : time(fields, 'openUntil'));
    } else if (message === 'breaker probe') begin(fields, 'probing', Number.POSITIVE_INFINITY);
    else if (message === 'breaker ramping' && !Number.isNaN(time(fields, 'rampUntil'))) {
      begin(fields, 'ramp', time(fields, 'rampUntil'));
    } else return false;
    return true;
  };
  return {
    log: {
      debug() {},
      info: (message, fields) => onEvent(message, fields),
      warn: (message, fields) => onEvent(message, fields) || note(message),
      error: (message) => note(message),
    },
    intervals,
    openAt: (tMs) => intervals.filter((i) => i.phase !== 'ramp' && i.startMs <= tMs && tMs < i.endMs),
    close(endMs) {
      for (const i of intervals) if (i.endMs > endMs) i.endMs = Math.max(i.startMs, endMs);
    },
    otherEvents,
  };
}
