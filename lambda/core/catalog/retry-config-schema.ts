/**
 * A pipeline's retry policy (docs/configuration.md#retry-policy): whether a failed route is tried
 * again within the same request before the loop moves on. Kept apart from config-schema.ts so the
 * concern reads on its own.
 */
import * as z from 'zod';
import { lazySchema, once } from '../lazy-schema.js';
import { positiveInt } from './config-fields.js';

/** The names of the retry policies: `drain` (SPEC §6.2, the default) and `contract`. */
export const RETRY_POLICY_NAMES = ['drain', 'contract'] as const;

/** The retry policy's object form; the bare name `"contract"` is this object with every default. */
const retryObjectSchema = lazySchema(() =>
  z.strictObject({
    /**
     * `drain`: a route that failed in this request is dropped and the loop drains to the next
     * (SPEC §6.2). `contract`: a transient-once failure (a single 5xx, a network error before
     * headers) or a 429 whose `Retry-After` fits the deadline is retried on the same route once,
     * then another route of the same model, then substitution. Default `drain`.
     */
    policy: z.enum(RETRY_POLICY_NAMES),
    /**
     * Base of the jittered backoff before a same-route retry after a 5xx or a network error, in ms:
     * the wait is drawn evenly from [backoffMs / 2, backoffMs). Default 200.
     */
    backoffMs: positiveInt.max(60_000).default(200),
    /** Longest `Retry-After` a same-route retry waits for, in ms; a longer one moves on. Default 5000. */
    maxRetryAfterMs: positiveInt.default(5_000),
    /**
     * Time the request's deadline must still hold after the wait, in ms, for the retry to be worth
     * it (the retry's own attempt needs it). Default 2000.
     */
    marginMs: z.number().int().nonnegative().default(2_000),
  }),
);

/**
 * `retry`: a policy name (`"drain"`, `"contract"`) or the object form with its settings. Parsed to
 * the object form.
 */
export const retrySchema = lazySchema(() =>
  z.preprocess((value) => (typeof value === 'string' ? { policy: value } : value), retryObjectSchema),
);

/** A parsed retry policy: the object form, every setting filled. */
export type RetrySettings = z.infer<typeof retryObjectSchema>;

/** The policy of a pipeline that sets none: `drain`, SPEC §6.2's behaviour (built at the first call). */
export const defaultRetry: () => Readonly<RetrySettings> = once(() =>
  Object.freeze(retrySchema.parse('drain')),
);
