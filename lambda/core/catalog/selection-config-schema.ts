/**
 * A pipeline's selection strategy (docs/configuration.md#selection-strategies): how a route is
 * chosen inside a tier. Kept apart from config-schema.ts so the concern reads on its own.
 */
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';

/** `weighted`: at random by the chain's weights, SPEC §6.2 (the default). */
const weightedSchema = lazySchema(() => z.strictObject({ strategy: z.literal('weighted') }));

/** `adaptive`: power of two choices scored by latency, success rate and load, weights as the prior. */
const adaptiveSchema = lazySchema(() => z.strictObject({ strategy: z.literal('adaptive') }));

/** `cost`: the cheapest route whose recent success rate is at least `minSuccessRate`. */
const costSchema = lazySchema(() =>
  z.strictObject({
    strategy: z.literal('cost'),
    /** Lowest recent success rate (0–1) a route may have to be chosen for its price. Default 0.9. */
    minSuccessRate: z.number().min(0).max(1).default(0.9),
  }),
);

/**
 * `selection`: `{ "strategy": "weighted" | "adaptive" | "cost", ... }`, or the strategy's name
 * alone. Parsed to the object form.
 */
export const selectionSchema = lazySchema(() =>
  z.preprocess(
    (value) => (typeof value === 'string' ? { strategy: value } : value),
    z.discriminatedUnion('strategy', [weightedSchema, adaptiveSchema, costSchema]),
  ),
);

/** A parsed selection setting. */
export type SelectionSettings = z.infer<typeof selectionSchema>;

/** The strategy of a pipeline that sets none. */
export const DEFAULT_SELECTION: Readonly<SelectionSettings> = Object.freeze({ strategy: 'weighted' });
