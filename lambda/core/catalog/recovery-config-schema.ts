/**
 * How an opened breaker returns (docs/concepts.md#breaker-recovery; fields: docs/configuration.md#attempts-and-breakers): `window`, closed outright
 * after `openMs`, or `ramp`, probes while open and then a growing share of traffic (seed 003).
 * Kept apart from config-schema.ts so the recovery fields read on their own.
 */
import * as z from 'zod';
import { DEFAULT_PROBE_SCHEDULE } from '../breaker/probe-schedule.js';
import { lazySchema, once } from '../lazy-schema.js';
import { positiveInt } from './config-fields.js';

/** `window` (closed after `openMs`) or `ramp` (probes, then a gradual return). */
export const RECOVERY_MODES = ['window', 'ramp'] as const;
export type RecoveryMode = (typeof RECOVERY_MODES)[number];

/** Percent steps of a ramp: each above the one before, each in (0, 100]. */
const rampSteps = lazySchema(() =>
  z
    .array(z.number().gt(0).max(100))
    .min(1)
    .max(20)
    .refine((steps) => steps.every((s, i) => i === 0 || s > (steps[i - 1] ?? 0)), {
      error: 'must rise step by step, e.g. [10, 25, 50, 100]',
    }),
);

/** One step of the probe schedule: probe every `everyMs` while the opening is younger than `untilMs`. */
const probeStep = lazySchema(() =>
  z.strictObject({
    /** Age of the opening, in ms, up to which the step applies. */
    untilMs: positiveInt,
    /** Ms between a failed probe and the next probe slot. */
    everyMs: positiveInt,
  }),
);

/** Steps in order of `untilMs`, each ending later than the one before. */
const probeSchedule = lazySchema(() =>
  z
    .array(probeStep)
    .max(20)
    .refine((steps) => steps.every((s, i) => i === 0 || s.untilMs > (steps[i - 1]?.untilMs ?? 0)), {
      error:
        'steps must end later one after the other, e.g. [{"untilMs":60000,"everyMs":5000},{"untilMs":300000,"everyMs":15000}]',
    }),
);

/** The recovery fields and what each accepts. */
export const recoveryFields = once(() => ({
  /** `window` or `ramp`. */
  recovery: z.enum(RECOVERY_MODES),
  /** Ms between two probe slots while a `ramp` breaker is open. */
  probeIntervalMs: positiveInt,
  /** Probe intervals by the age of the opening; `[]`: every `probeIntervalMs`. */
  probeSchedule,
  /** Ms a claimed probe holds the probe slot when its outcome never comes. */
  probeLeaseMs: positiveInt,
  /** Consecutive probe successes that move an open `ramp` breaker to its ramp. */
  probeSuccesses: positiveInt.max(100),
  /** Percent of the pipeline's traffic the route may take at each ramp step. */
  rampSteps,
  /** How long each ramp step is held, in ms. */
  rampStepMs: positiveInt,
}));

/** The recovery fields of the top-level `breaker` block, every one defaulted. */
export const recoverySettingsShape = once(() => ({
  /** Default `window`: today's behaviour, closed outright after `openMs`. */
  recovery: recoveryFields().recovery.default('window'),
  /** Default 30000 (a probe every 30 s, seed 003); used only with `probeSchedule: []`. */
  probeIntervalMs: recoveryFields().probeIntervalMs.default(30_000),
  /**
   * Default every 5 s for the first minute of an opening, every 15 s up to 5 minutes, every minute
   * up to 15 minutes, then every `openMs` (docs/concepts.md#the-probe-schedule).
   */
  probeSchedule: recoveryFields().probeSchedule.default(() => DEFAULT_PROBE_SCHEDULE.map((s) => ({ ...s }))),
  /** Default 30000 (30 s: longer than an attempt's default limits). */
  probeLeaseMs: recoveryFields().probeLeaseMs.default(30_000),
  /** Default 3. */
  probeSuccesses: recoveryFields().probeSuccesses.default(3),
  /** Default [10, 25, 50, 100]. */
  rampSteps: recoveryFields().rampSteps.default([10, 25, 50, 100]),
  /** Default 60000 (1 min per step: the whole return takes about 5 minutes). */
  rampStepMs: recoveryFields().rampStepMs.default(60_000),
}));
