/**
 * Breaker open intervals, taken from the gateway's own `breaker opened` log events: each event
 * names the (pipeline, model), the reason and `openUntil`, and a breaker has no half-open state,
 * so an opening lasts exactly until `openUntil`.
 */
import type { LogFields, Logger } from '../../core/logger.js';

/** One opening of one breaker. */
export interface BreakerInterval {
  pipeline: string;
  model: string;
  /** `consecutive_429`, `failure_rate`, `upstream_auth` or `model_not_found`. */
  reason: string;
  /** Ms after the run started. */
  startMs: number;
  /** Ms after the run started. */
  endMs: number;
}

/** The demo's logger and what it collected. */
export interface BreakerTimeline {
  /** Pass this to the gateway. */
  log: Logger;
  readonly intervals: readonly BreakerInterval[];
  /** Breakers open at `tMs` (ms after the start). */
  openAt(tMs: number): BreakerInterval[];
  /** Warnings and errors other than breaker openings, by message, for the summary. */
  readonly otherEvents: ReadonlyMap<string, number>;
}

export function createBreakerTimeline(startedAt: number): BreakerTimeline {
  const intervals: BreakerInterval[] = [];
  const otherEvents = new Map<string, number>();
  const note = (message: string) => otherEvents.set(message, (otherEvents.get(message) ?? 0) + 1);
  const onWarn = (message: string, fields?: LogFields) => {
    const openUntil = typeof fields?.openUntil === 'string' ? Date.parse(fields.openUntil) : Number.NaN;
    if (message !== 'breaker opened' || Number.isNaN(openUntil)) {
      note(message);
      return;
    }
    intervals.push({
      pipeline: String(fields?.pipeline),
      model: String(fields?.model),
      reason: String(fields?.reason),
      startMs: Date.now() - startedAt,
      endMs: openUntil - startedAt,
    });
  };
  return {
    log: { debug() {}, info() {}, warn: onWarn, error: (message) => note(message) },
    intervals,
    openAt: (tMs) => intervals.filter((i) => i.startMs <= tMs && tMs < i.endMs),
    otherEvents,
  };
}
