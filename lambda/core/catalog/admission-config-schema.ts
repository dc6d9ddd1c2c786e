/**
 * The `admission` section: rate limits and daily spend caps per caller key and per pipeline,
 * checked before any upstream call (docs/concepts.md#admission-budgets-and-rate-limits). Every
 * limit is optional; one left out does not apply.
 */
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { keyName, pipelineName, positiveInt } from './config-fields.js';

/** The limits of one caller key or one pipeline. Every field optional: absent means no limit. */
export const admissionLimitsSchema = lazySchema(() =>
  z.strictObject({
    /** Requests per sliding minute. Default: no limit. */
    requestsPerMinute: positiveInt.max(1_000_000).optional(),
    /** Input + output tokens per sliding minute. Default: no limit. */
    tokensPerMinute: positiveInt.max(1_000_000_000).optional(),
    /** US dollars per UTC day, from the catalog's prices. Default: no limit. */
    usdPerDay: z.number().positive().max(1_000_000).optional(),
  }),
);

/**
 * Which ad-hoc chains (a chain in `model`, docs/concepts.md#ad-hoc-chains) a caller may send:
 * `true` any, `false` none, or a list of the chains allowed, compared in canonical form (aliases
 * resolved, spaces and weights of 1 dropped), so `(fast | b)` allows `(gpt-mini|b)`.
 */
export const adHocChainsSchema = lazySchema(() =>
  z.union([z.boolean(), z.array(z.string().min(1).max(2_000)).max(100)], {
    error: 'must be true, false or a list of at most 100 chains',
  }),
);

/**
 * The limits of one caller key: the shared ones, and how many unfinished jobs (queued, running or
 * retrying) it may keep in the job store, so that one key cannot fill it for every other caller.
 */
export const keyLimitsSchema = lazySchema(() =>
  admissionLimitsSchema.extend({
    /** Unfinished jobs the key may have at once; over it `POST /v1/jobs` answers 429 `job_quota_exceeded`. Default: `jobs.maxQueuedPerKey`. */
    maxQueuedJobs: positiveInt.max(100_000).optional(),
  }),
);

/** A named caller key's limits, and which ad-hoc chains it may send. */
export const keyAdmissionSchema = lazySchema(() =>
  keyLimitsSchema.extend({
    /** This key's own {@link adHocChainsSchema} setting. Default: `admission.adHocChains`. */
    adHocChains: adHocChainsSchema.optional(),
  }),
);

/** What admission does when its store cannot be reached: admit (`open`) or refuse with 503 (`closed`). */
export const storeFailurePolicySchema = lazySchema(() => z.enum(['open', 'closed']));

export const admissionSchema = lazySchema(() =>
  z.strictObject({
    /** Limits per caller key name (the names of `auth.keys` or the SSM caller keys). Default none. */
    keys: z.record(keyName, keyAdmissionSchema).default({}),
    /** Limits of every authenticated caller key not named in `keys`. Default: none. */
    defaultKey: keyLimitsSchema.prefault({}),
    /**
     * Limits per configured pipeline (shared by every caller of it); the reserved name `adhoc`
     * limits every ad-hoc chain together. Default none.
     */
    pipelines: z.record(pipelineName, admissionLimitsSchema).default({}),
    /**
     * The ad-hoc chains a caller may send when its key sets none of its own (`keys.<k>.adHocChains`):
     * every caller key not naming one, and every caller while authentication is off. Default `true`.
     */
    adHocChains: adHocChainsSchema.default(true),
    /**
     * Characters of the request's messages counted as one input token when reserving; the
     * settlement uses the real usage. Default 4.
     */
    charsPerToken: z.number().positive().max(100).default(4),
    /** Per limit type, what a store failure does. Default: rate limits open, spend closed. */
    onStoreFailure: z
      .strictObject({
        /** Default `open`. */
        requests: storeFailurePolicySchema.default('open'),
        /** Default `open`. */
        tokens: storeFailurePolicySchema.default('open'),
        /** Default `closed`: a spend cap bounds money, and an outage must not lift it. */
        spend: storeFailurePolicySchema.default('closed'),
      })
      .prefault({}),
  }),
);

export type AdmissionSettings = z.output<typeof admissionSchema>;
export type AdmissionLimitsConfig = z.output<typeof admissionLimitsSchema>;
export type KeyLimitsConfig = z.output<typeof keyLimitsSchema>;
export type AdHocChainsSetting = z.output<typeof adHocChainsSchema>;
export type StoreFailurePolicy = z.output<typeof storeFailurePolicySchema>;
