/**
 * How an opened breaker returns (docs/concepts.md#breaker-recovery; fields: docs/configuration.md#attempts-and-breakers): `window`, closed outright
 * after `openMs`, or `ramp`, probes while open and then a growing share of traffic (seed 003).
 * Kept apart from config-schema.ts so the recovery fields read on their own.
 */
import * as z from 'zod';
import { positiveInt } from './config-fields.js';

/** `window` (closed after `openMs`) or `ramp` (probes, then a gradual return). */
export const RECOVERY_MODES = ['window', 'ramp'] as const;
export type RecoveryMode = (typeof RECOVERY_MODES)[number];

/** Percent steps of a ramp: each above the one before, each in (0, 100]. */
const rampSteps = z
  .array(z.number().gt(0).max(100))
  .min(1)
  .max(20)
  .refine((steps) => steps.every((s, i) => i === 0 || s > (steps[i - 1] ?? 0)), {
    error: 'must rise step by step, e.g. [10, 25, 50, 100]',
  });

/** The recovery fields and what each accepts. */
export const recoveryFields = {
  /** `window` or `ramp`. */
  recovery: z.enum(RECOVERY_MODES),
  /** Ms between two probe slots while a `ramp` breaker is open. */
  probeIntervalMs: positiveInt,
  /** Consecutive probe successes that move an open `ramp` breaker to its ramp. */
  probeSuccesses: positiveInt.max(100),
  /** Percent of the pipeline's traffic the route may take at each ramp step. */
  rampSteps,
  /** How long each ramp step is held, in ms. */
  rampStepMs: positiveInt,
};

/** The recovery fields of the top-level `breaker` block, every one defaulted. */
export const recoverySettingsShape = {
  /** Default `window`: today's behaviour, closed outright after `openMs`. */
  recovery: recoveryFields.recovery.default('window'),
  /** Default 30000 (a probe every 30 s, seed 003). */
  probeIntervalMs: recoveryFields.probeIntervalMs.default(30_000),
  /** Default 3. */
  probeSuccesses: recoveryFields.probeSuccesses.default(3),
  /** Default [10, 25, 50, 100]. */
  rampSteps: recoveryFields.rampSteps.default([10, 25, 50, 100]),
  /** Default 60000 (1 min per step: the whole return takes about 5 minutes). */
  rampStepMs: recoveryFields.rampStepMs.default(60_000),
};
