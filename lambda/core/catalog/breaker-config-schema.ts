/**
 * The breaker settings of the config file (docs/design.md#breakers): the top-level `breaker`
 * block, every field defaulted, and a pipeline's own `breaker` overrides.
 */
import * as z from 'zod';
import { lazySchema, once } from '../lazy-schema.js';
import { positiveInt } from './config-fields.js';
import { recoveryFields, recoverySettingsShape } from './recovery-config-schema.js';

/** The breaker fields (docs/design.md#breakers) and what each accepts. */
const breakerFields = once(() => ({
  /** Length of the sliding window in ms. */
  windowMs: positiveInt,
  /** Attempts the window must hold before the failure rate can open the breaker. */
  minSamples: positiveInt,
  /** Failure rate (0–1) in the window that opens the breaker. */
  failureRate: z.number().gt(0).max(1),
  /** Consecutive 429s that open the breaker. */
  consecutive429: positiveInt,
  /** How long an opened breaker stays open, in ms (with recovery `window`). */
  openMs: positiveInt,
  ...recoveryFields(),
}));

/** The top-level `breaker` block: every pipeline's breakers, every field defaulted. */
export const breakerSettingsSchema = lazySchema(() =>
  z.strictObject({
    /** Default 900000 (15 min). */
    windowMs: breakerFields().windowMs.default(900_000),
    /** Default 5. */
    minSamples: breakerFields().minSamples.default(5),
    /** Default 0.3. */
    failureRate: breakerFields().failureRate.default(0.3),
    /** Default 2. */
    consecutive429: breakerFields().consecutive429.default(2),
    /** Default 900000 (15 min). */
    openMs: breakerFields().openMs.default(900_000),
    /** How an opened breaker returns: `recovery`, `probeIntervalMs`, `probeSuccesses`, `rampSteps`, `rampStepMs`. */
    ...recoverySettingsShape(),
  }),
);

/** A pipeline's own `breaker` block: each field left out keeps the top-level value. */
export const breakerOverridesSchema = lazySchema(() => z.strictObject(breakerFields()).partial());

export type BreakerSettings = z.infer<typeof breakerSettingsSchema>;
