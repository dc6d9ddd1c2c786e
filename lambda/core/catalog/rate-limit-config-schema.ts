/**
 * The `rateLimit` block (docs/configuration.md#attempts-and-breakers): how long a 429 cools its account route
 * for every pipeline, and how long a container reuses its read of that cooling.
 */
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { positiveInt } from './config-fields.js';

export const rateLimitSchema = lazySchema(() =>
  z.strictObject({
    /**
     * How long a 429 without `Retry-After` cools its account route (provider, upstream model id) for
     * every pipeline, in ms. A `Retry-After` replaces it; either is capped at the pipeline's
     * `breaker.openMs`. Default 5000 (5 s).
     */
    coolMs: positiveInt.default(5_000),
    /**
     * How long a container reuses its read of account-route cooling, in ms: another container's 429 is
     * seen up to this late (this container's own at once). 0 reads with every selection. At most
     * 10000. Default 1000.
     */
    readCacheMs: z.number().int().nonnegative().max(10_000).default(1_000),
  }),
);

export type RateLimitSettings = z.infer<typeof rateLimitSchema>;
