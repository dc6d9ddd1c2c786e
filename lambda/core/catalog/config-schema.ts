/**
 * The config file's schema. It fills every default: a field left out of the file has its value
 * here and nowhere else, and the parsed config (`SwitchyardConfig`) has no optional field but
 * those whose absence means something (no `auth`: authentication off; no `price`: no cost).
 */
import * as z from 'zod';
import { capabilityOverridesSchema } from '../capabilities/capability.js';
import { lazySchema, once } from '../lazy-schema.js';
import { isLoopbackHost } from '../loopback.js';
import { AD_HOC_PIPELINE } from './ad-hoc-chains.js';
import { admissionSchema } from './admission-config-schema.js';
import { awsSchema } from './aws-config-schema.js';
import { breakerOverridesSchema, breakerSettingsSchema } from './breaker-config-schema.js';
import { capacityReferenceIssues, capacitySchema } from './capacity-config-schema.js';
import { chainName, keyName, name, pipelineName, positiveInt } from './config-fields.js';
import { corsSchema } from './cors-config-schema.js';
import {
  createSchedulesSchema,
  type JobRequestSchema,
  jobsSchema,
  webhooksSchema,
} from './jobs-config-schema.js';
import { metricsSchema, statusPageSchema } from './observe-config-schema.js';
import { answerCacheSchema, pipelineOutputFields, structuredOutputSchema } from './output-config-schema.js';
import { priceSchema } from './price-schema.js';
import { rateLimitSchema } from './rate-limit-config-schema.js';
import { retrySchema } from './retry-config-schema.js';
import { modelRoutesField, substitutionLimitsSchema } from './route-config-schema.js';
import { selectionSchema } from './selection-config-schema.js';
import { streamingSchema } from './streaming-config-schema.js';
import { timeoutsField } from './timeouts-config-schema.js';

/**
 * What the core knows of a provider entry: its `type`. Each provider family (`lambda/families/`)
 * owns the schema of its own fields; the caller passes their union to {@link createConfigSchema}.
 */
export interface ProviderSettings {
  /** Selects the provider family, e.g. the one registered under this name in `lambda/families/registry.ts`. */
  readonly type: string;
}

export const modelSchema = lazySchema(() =>
  z.strictObject({
    /** Name of an entry of `providers`. */
    provider: name,
    /** The provider's raw model id, e.g. `gpt-4o-mini`. */
    model: name,
    /** Other names this model answers to in chains. Default none. */
    aliases: z.array(chainName).default([]),
    /**
     * Upper bound of one attempt in ms, and the default of each of `timeouts` (connect, first
     * byte, total, stream idle). Default 10000.
     */
    timeoutMs: positiveInt.default(10_000),
    /** Layered time limits (docs/configuration.md#timeouts). Default: each is `timeoutMs`. */
    ...timeoutsField(),
    /** Default: none (the ledger carries no cost for this model). */
    price: priceSchema.optional(),
    /**
     * Largest `max_tokens` / `max_completion_tokens` a request may ask of this model (the model's
     * output limit). Default: none, so `limits.maxOutputTokens` applies.
     */
    maxOutputTokens: positiveInt.optional(),
    /**
     * The model's context window in tokens, prompt and output together, as its provider publishes
     * it (docs/configuration.md#context-windows). The router passes over a model too small for a
     * request, and after `context_length_exceeded` falls back only to a larger one. Default: none
     * (never skipped for size).
     */
    contextWindow: positiveInt.optional(),
    /**
     * Makes this an embedding model whose vectors have this many numbers: it serves
     * `POST /v1/embeddings` only, and a chain falls back only among models of the same `dimensions`
     * (docs/configuration.md#embedding-models). Default: none (a chat model).
     */
    dimensions: positiveInt.max(65_536).optional(),
    /**
     * What this model's routes can carry, over their family's values (docs/configuration.md#capabilities),
     * e.g. `{ "images": false }` for a text-only model. Default: the family's.
     */
    capabilities: capabilityOverridesSchema.optional(),
    ...modelRoutesField(),
  }),
);

/** The attempt and deadline fields and what each accepts. */
const attemptFields = once(() => ({
  /** Upstream attempts per request. */
  maxAttempts: positiveInt.max(20),
  /** Time budget of a whole request in ms. */
  deadlineMs: positiveInt,
  /** Fall back when a model's context window is exceeded instead of stopping. */
  fallbackOnContextLength: z.boolean(),
}));

/** The top-level `router` block: attempt settings of every pipeline and ad-hoc chain, defaulted. */
export const routerSchema = lazySchema(() =>
  z.strictObject({
    /** Default 3. */
    maxAttempts: attemptFields().maxAttempts.default(3),
    /** Default 15000. */
    deadlineMs: attemptFields().deadlineMs.default(15_000),
    /** Default false. */
    fallbackOnContextLength: attemptFields().fallbackOnContextLength.default(false),
    /** Default `drain` (docs/configuration.md#retry-policy). */
    retry: retrySchema.prefault('drain'),
    /** Default `{ "strategy": "weighted" }` (docs/configuration.md#selection-strategies). */
    selection: selectionSchema.prefault('weighted'),
  }),
);

export const pipelineSchema = lazySchema(() =>
  z.strictObject({
    /** The chain, in the DSL of docs/design.md#the-chain-dsl. */
    chain: z.string().min(1),
    description: z.string().optional(),
    /** Attempt settings of this pipeline; each field left out keeps the `router` value. */
    ...z.strictObject(attemptFields()).partial().shape,
    /** This pipeline's retry policy (docs/configuration.md#retry-policy). Default: the `router` block's. */
    retry: retrySchema.optional(),
    /** How this pipeline chooses a route inside a tier (docs/configuration.md#selection-strategies). Default: the `router` block's. */
    selection: selectionSchema.optional(),
    /** Per-pipeline breaker overrides. */
    breaker: breakerOverridesSchema.optional(),
    /** Structured output repair, substitute post-processing, prompt suffix, last resort. */
    ...pipelineOutputFields(),
    /** How far this pipeline may degrade: `substitution` and `maxTier`. */
    ...substitutionLimitsSchema.shape,
    /** What a committed stream that breaks does (`afterOutput`). Default: `{ afterOutput: "error" }`. */
    streaming: streamingSchema.prefault({}),
  }),
);

/**
 * Caller authentication: key name → SHA-256 (hex) of the key. Keys themselves are never stored.
 * An empty `keys` refuses every caller; no `auth` section at all turns authentication off.
 */
export const authSchema = lazySchema(() =>
  z.strictObject({
    keys: z.record(
      keyName,
      z.string().regex(/^[a-f0-9]{64}$/, 'must be the lowercase hex SHA-256 of the key'),
    ),
    /**
     * Names of the keys that may read `/v1/breakers`, `/v1/pipelines` and every scheduled job. The
     * names may live in `keys` or, in AWS, in the SSM caller-keys parameter. Default none.
     */
    operatorKeys: z.array(keyName).default([]),
  }),
);

/**
 * The highest `limits.maxJsonDepth` the config accepts: a 256-level body still passes every
 * recursive step of the gateway with room to spare (ajv compiles a schema about 970 levels deep,
 * `structuredClone` copies about 1,900 and `JSON.stringify` about 4,100 on a fresh stack).
 */
export const MAX_JSON_DEPTH = 256;

/** Bounds on what one request may ask for, and on what one attempt reads of an upstream's answer; every field has a default. */
export const limitsSchema = lazySchema(() =>
  z.strictObject({
    /** Most messages in one request. Default 1000. */
    maxMessages: positiveInt.max(1_000_000).default(1_000),
    /** Largest `max_tokens` / `max_completion_tokens` for a model without its own `maxOutputTokens`. Default 32768. */
    maxOutputTokens: positiveInt.default(32_768),
    /** Longest caller-supplied name (a pipeline header, a model) echoed in an error, in characters. Default 128. */
    maxEchoChars: positiveInt.max(2_000).default(128),
    /**
     * Most levels of objects and arrays nested in a request body (the body itself is level 1),
     * checked before the body is parsed. Default 64; at most 256, well below what the runtime's
     * recursive steps (serialisers, `structuredClone`, schema compilers) survive.
     */
    maxJsonDepth: positiveInt.min(8).max(MAX_JSON_DEPTH).default(64),
    /**
     * Most bytes the gateway reads of one upstream body read whole (a JSON answer, an error body),
     * after content decoding; an embeddings answer may also hold 48 bytes per number asked for
     * (inputs × dimensions). Over it the attempt is cut as `malformed_response`. Default 8388608 (8 MiB).
     */
    maxUpstreamBodyBytes: positiveInt.max(1_073_741_824).default(8_388_608),
    /**
     * Most bytes of one upstream stream event: an SSE event's lines (blank line to blank line, line
     * ends not counted) or one AWS event-stream message. Over it the attempt is cut as
     * `malformed_response`. Default 1048576 (1 MiB).
     */
    maxUpstreamEventBytes: positiveInt.max(1_073_741_824).default(1_048_576),
  }),
);

/** The config object around given `providers` entry and job request schemas (no cross-field checks yet). */
function configObjectSchema<P extends z.ZodType<ProviderSettings>>(
  providerSchema: P,
  jobRequest: JobRequestSchema,
) {
  return z.strictObject({
    /** Provider name → its settings, in the schema of its family (`type`). */
    providers: z.record(name, providerSchema),
    models: z.record(chainName, modelSchema),
    /** Default none: callers send ad-hoc chains only. */
    pipelines: z.record(pipelineName, pipelineSchema).default({}),
    breaker: breakerSettingsSchema.prefault({}),
    /** Account-route cooling after a 429, shared by every pipeline. */
    rateLimit: rateLimitSchema.prefault({}),
    router: routerSchema.prefault({}),
    aws: awsSchema.prefault({}),
    /** Default: none, and authentication is off. */
    auth: authSchema.optional(),
    schedules: createSchedulesSchema(jobRequest),
    jobs: jobsSchema.prefault({}),
    limits: limitsSchema.prefault({}),
    /** Rate limits and daily spend caps per caller key and pipeline. Default: none apply. */
    admission: admissionSchema.prefault({}),
    webhooks: webhooksSchema.prefault({}),
    structuredOutput: structuredOutputSchema.prefault({}),
    answerCache: answerCacheSchema.prefault({}),
    /** `GET /metrics` in Prometheus text format. Default: off. */
    metrics: metricsSchema.prefault({}),
    /** `GET /status`, the live status page. Default: off. */
    statusPage: statusPageSchema.prefault({}),
    /** Browser origins allowed to call the gateway (CORS). Default: none. */
    cors: corsSchema.prefault({}),
    /** Bulkheads (`maxInFlight`) and declared quotas of providers and routes. Default: none. */
    capacity: capacitySchema.prefault({}),
  });
}

/**
 * The whole config file's schema, its `providers` entries validated by `providerSchema` (the
 * union of the registered families' schemas) and its scheduled jobs' requests by `jobRequest`
 * (the jobs door's schema), both built outside the core; also checks that webhooks are https://
 * outside loopback unless allowed.
 */
export function createConfigSchema<P extends z.ZodType<ProviderSettings>>(
  providerSchema: P,
  jobRequest: JobRequestSchema,
) {
  return (
    configObjectSchema(providerSchema, jobRequest)
      // A signed answer travels in clear text only where the operator said so, or on this machine.
      .superRefine((config, ctx) => {
        if (Object.hasOwn(config.pipelines, AD_HOC_PIPELINE))
          ctx.addIssue({
            code: 'custom',
            path: ['pipelines', AD_HOC_PIPELINE],
            message: `'${AD_HOC_PIPELINE}' is reserved for ad-hoc chains (limit them under admission.pipelines.${AD_HOC_PIPELINE}); rename this pipeline`,
          });
        for (const name of Object.keys(config.admission.pipelines)) {
          if (!(name in config.pipelines) && name !== AD_HOC_PIPELINE)
            ctx.addIssue({
              code: 'custom',
              path: ['admission', 'pipelines', name],
              message: 'names no pipeline',
            });
        }
        for (const issue of capacityReferenceIssues(config)) ctx.addIssue({ code: 'custom', ...issue });
        if (config.webhooks.allowHttp) return;
        for (const [name, schedule] of Object.entries(config.schedules)) {
          const url = schedule.deliver && new URL(schedule.deliver.url);
          if (url && url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
            ctx.addIssue({
              code: 'custom',
              path: ['schedules', name, 'deliver', 'url'],
              message: 'must be https:// (http:// only to loopback, or with webhooks.allowHttp: true)',
            });
          }
        }
      })
  );
}

/** The config schema whose providers are validated by `P`. */
export type ConfigSchema<P extends z.ZodType<ProviderSettings>> = ReturnType<typeof createConfigSchema<P>>;
/**
 * A parsed config: every default filled. The core reads only the neutral {@link ProviderSettings}
 * of each provider; code that knows the families uses `SwitchyardConfig` of `lambda/config/switchyard-config.ts`.
 */
export type SwitchyardConfig<P extends ProviderSettings = ProviderSettings> = z.output<
  ConfigSchema<z.ZodType<P>>
>;
export type ModelConfig = z.infer<typeof modelSchema>;
export type PipelineConfig = z.infer<typeof pipelineSchema>;
export type RouterSettings = z.infer<typeof routerSchema>;
export type LimitsConfig = z.infer<typeof limitsSchema>;
export type AuthConfig = z.infer<typeof authSchema>;
