import { breakerSettingsSchema } from '../catalog/breaker-config-schema.js';
import type { ProbeStep } from './probe-schedule.js';

/** Thresholds of one pipeline's breakers (docs/design.md#breakers): config `breaker`, and a pipeline's own `breaker`. */
export interface BreakerPolicy {
  /** Length of the sliding window in ms. */
  windowMs: number;
  /** Attempts the window must hold before the failure rate can open the breaker. */
  minSamples: number;
  /** Failure rate (0–1) in the window that opens the breaker. */
  failureRate: number;
  /** Consecutive 429s that open the breaker. */
  consecutive429: number;
  /** How long an opened breaker stays open, in ms (recovery `window`). */
  openMs: number;
  /** `window`: closed outright after `openMs`; `ramp`: probes, then a growing share of traffic. */
  recovery: 'window' | 'ramp';
  /** Ms between two probe slots while a `ramp` breaker is open, when `probeSchedule` is empty. */
  probeIntervalMs: number;
  /**
   * When a `ramp` breaker probes, by the age of the opening (docs/concepts.md#the-probe-schedule).
   * Empty: a fixed slot of `probeIntervalMs`.
   */
  probeSchedule: readonly ProbeStep[];
  /**
   * How long a claimed probe holds the route's one probe slot, in ms, when its outcome never comes
   * (the container died): the outcome sets the next slot itself.
   */
  probeLeaseMs: number;
  /** Consecutive probe successes that start the ramp. */
  probeSuccesses: number;
  /** Percent of the pipeline's traffic admitted at each ramp step, rising. */
  rampSteps: readonly number[];
  /** How long each ramp step is held, in ms. */
  rampStepMs: number;
}

/** The policy of a config that sets no breaker field: the config schema's defaults. */
export const DEFAULT_BREAKER_POLICY: Readonly<BreakerPolicy> = Object.freeze(breakerSettingsSchema.parse({}));

/**
 * The window is kept as 15 buckets of `windowMs / 15` (1 min by default), so a store can hold it
 * in one bounded item and add to it with one atomic write. A sample stops counting as soon as its
 * bucket starts more than `windowMs` ago, so it never counts for longer than the window.
 */
export const WINDOW_BUCKETS = 15;

/** Width of one window bucket in ms. */
export function bucketWidth(policy: Pick<BreakerPolicy, 'windowMs'>): number {
  return Math.max(1, Math.floor(policy.windowMs / WINDOW_BUCKETS));
}

/** Start (ms) of the bucket that holds a sample taken at `at`. */
export function bucketStart(at: number, policy: Pick<BreakerPolicy, 'windowMs'>): number {
  const width = bucketWidth(policy);
  return Math.floor(at / width) * width;
}
