/**
 * The layered timeouts of a model or route (docs/configuration.md#timeouts). Every field is
 * optional: an unset one is derived from `timeoutMs` in one place, `deriveTimeouts`, so a config
 * written for the single `timeoutMs` keeps its meaning.
 */
import * as z from 'zod';
import { positiveInt } from './config-fields.js';

export const timeoutsSchema = z.strictObject({
  /** Until the TCP (and TLS) connection is up, in ms. Default: `timeoutMs`. */
  connectMs: positiveInt.optional(),
  /** Until the first byte (response headers; a stream's first content event), in ms from the attempt's start. Default: `timeoutMs`. */
  firstByteMs: positiveInt.optional(),
  /** Until a plain answer is complete, in ms from the attempt's start. Default: `timeoutMs`. */
  totalMs: positiveInt.optional(),
  /** After a stream's commit, the longest silence between two events, in ms. Default: `timeoutMs`. */
  idleMs: positiveInt.optional(),
});

/** The `timeouts` field of a model or a route. Default: none (every limit is `timeoutMs`). */
export const timeoutsField = {
  timeouts: timeoutsSchema.optional(),
};

export type TimeoutsConfig = z.infer<typeof timeoutsSchema>;
