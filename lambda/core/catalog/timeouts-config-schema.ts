/**
 * The layered timeouts of a model or route (docs/configuration.md#timeouts). Every field is
 * optional: an unset one is derived from `timeoutMs` in one place, `deriveTimeouts`, so a config
 * written for the single `timeoutMs` keeps its meaning.
 */
import * as z from 'zod';
import { lazySchema, once } from '../lazy-schema.js';
import { positiveInt } from './config-fields.js';

export const timeoutsSchema = lazySchema(() =>
  z.strictObject({
    /** Until the TCP (and TLS) connection is up, in ms. Default: `timeoutMs`. */
    connectMs: positiveInt.optional(),
    /** Until the first byte (response headers; a stream's first content event), in ms from the attempt's start. Default: `timeoutMs`. */
    firstByteMs: positiveInt.optional(),
    /** Until a plain answer is complete, in ms from the attempt's start. Default: `timeoutMs`. */
    totalMs: positiveInt.optional(),
    /** After a stream's commit, the longest silence between two events, in ms. Default: `timeoutMs`. */
    idleMs: positiveInt.optional(),
    /**
     * The route's expected output rate, in tokens per second: the slowest at which it is healthy.
     * A plain answer's total limit grows by the time the caller's `max_tokens` takes at this rate,
     * and a total-phase timeout that this time explains is not counted against the route.
     * Default 20.
     */
    outputTokensPerSec: z.number().positive().max(1_000_000).optional(),
  }),
);

/** The `timeouts` field of a model or a route. Default: none (every limit is `timeoutMs`). */
export const timeoutsField = once(() => ({
  timeouts: timeoutsSchema.optional(),
}));

export type TimeoutsConfig = z.infer<typeof timeoutsSchema>;
