/**
 * When an open `ramp` breaker probes (docs/concepts.md#the-probe-schedule): often while an outage
 * is young, less often as it ages, and a quarantine (our credential refused, the model gone) only
 * after `openMs`, as before. Pure: every container computes the same slot from the stored opening.
 */
import type { BreakerPolicy } from './breaker-policy.js';
import type { OpenReason } from './breaker-state.js';

/** One step of the probe schedule: while the outage is younger than `untilMs`, probe every `everyMs`. */
export interface ProbeStep {
  /** Age of the opening (ms since it opened) up to which this step applies, exclusive. */
  untilMs: number;
  /** Ms from a failed probe (or from the opening) to the next probe slot. */
  everyMs: number;
}

/**
 * Default schedule: every 10 s for the first minute, every 15 s up to 5 minutes, every minute up
 * to 15 minutes; past the last step every `openMs`. Chosen by measurement (bench/README.md#recovery-after-an-outage):
 * with the probe shared per account route, 10 s finds a recovered primary within 10 s and sends
 * fewer probes into a 60 s outage than the fixed 30 s slot did for five pipelines; 5 s sent twice as many.
 */
export const DEFAULT_PROBE_SCHEDULE: readonly ProbeStep[] = Object.freeze([
  { untilMs: 60_000, everyMs: 10_000 },
  { untilMs: 300_000, everyMs: 15_000 },
  { untilMs: 900_000, everyMs: 60_000 },
]);

/** Openings that quarantine a route: they keep the long open (`openMs`) before their first probe. */
export function isQuarantine(reason: OpenReason | undefined): boolean {
  return reason === 'upstream_auth' || reason === 'model_not_found';
}

type SchedulePolicy = Pick<BreakerPolicy, 'openMs' | 'probeIntervalMs' | 'probeSchedule'>;

/**
 * Ms to the next probe slot for an opening of `reason` that is `ageMs` old. An empty schedule is
 * the fixed slot of `probeIntervalMs`; past the schedule's last step, and for a quarantine, `openMs`.
 */
export function probeIntervalAt(
  policy: SchedulePolicy,
  reason: OpenReason | undefined,
  ageMs: number,
): number {
  if (isQuarantine(reason)) return policy.openMs;
  if (policy.probeSchedule.length === 0) return policy.probeIntervalMs;
  const step = policy.probeSchedule.find((s) => ageMs < s.untilMs);
  return step ? step.everyMs : policy.openMs;
}

/** Ms from an opening of `reason` to its first probe slot. */
export function firstProbeDelay(policy: SchedulePolicy, reason: OpenReason): number {
  return probeIntervalAt(policy, reason, 0);
}

/**
 * Start (ms since epoch) of the next probe slot after a probe that ended at `at`: at once after a
 * success (the ramp's probe successes may follow each other while they succeed), else one interval
 * of the schedule at the opening's age. `openedAt` undefined: the age is taken as 0.
 */
export function nextProbeSlot(
  policy: SchedulePolicy,
  opening: { openedAt?: number | undefined; openReason?: OpenReason | undefined },
  at: number,
  ok: boolean,
): number {
  if (ok) return at;
  const age = Math.max(0, at - (opening.openedAt ?? at));
  return at + probeIntervalAt(policy, opening.openReason, age);
}
