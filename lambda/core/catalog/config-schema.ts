import { z } from 'zod';
import { chatCompletionBodySchema } from '../chat/chat-request-schema.js';
import { isLoopbackHost } from '../loopback.js';
import { scheduleExpressionSchema } from './schedule-expression.js';

const name = z.string().min(1).max(200);
/** Names that appear in chains use the DSL's name characters, so every chain can be printed and parsed back. */
const chainName = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9\-_.:/@]+$/, 'may contain only letters, digits and - _ . : / @');
/** Pipeline names become env var suffixes and SSM parameter path segments. */
const pipelineName = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_.-]+$/, 'may contain only letters, digits and - _ .');
const positiveInt = z.number().int().positive();

/** An OpenAI-compatible endpoint: OpenAI, Google's and Vertex's compatible endpoints, OpenRouter, Together, a fake. */
export const openAIProviderSchema = z.strictObject({
  type: z.literal('openai'),
  /** Always honoured, e.g. `https://api.openai.com/v1`. */
  baseURL: z.url({ protocol: /^https?$/ }),
  /** Environment variable holding the API key (local mode). */
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
    .optional(),
  /**
   * Where the API key lives in AWS mode: a name starting with `/` is an SSM SecureString
   * parameter, anything else a Secrets Manager secret name.
   */
  apiKeySecret: z
    .string()
    .regex(
      /^(\/[A-Za-z0-9_.\-/]+|[A-Za-z0-9/_+=.@-]+)$/,
      'must be an SSM parameter path or a Secrets Manager name',
    )
    .optional(),
});

/** The Bedrock Runtime Converse API. */
export const bedrockProviderSchema = z.strictObject({
  type: z.literal('bedrock'),
  region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be an AWS region such as us-east-1'),
  /** Optional endpoint override, e.g. a local fake. */
  endpoint: z.url({ protocol: /^https?$/ }).optional(),
});

export const providerSchema = z.discriminatedUnion('type', [openAIProviderSchema, bedrockProviderSchema]);

export const priceSchema = z.strictObject({
  /** US dollars per million input tokens. */
  inputPerMTok: z.number().nonnegative(),
  /** US dollars per million output tokens. */
  outputPerMTok: z.number().nonnegative(),
});

export const modelSchema = z.strictObject({
  /** Name of an entry of `providers`. */
  provider: name,
  /** The provider's raw model id, e.g. `gpt-4o-mini`. */
  model: name,
  /** Other names this model answers to in chains. */
  aliases: z.array(chainName).optional(),
  /** Upper bound of one attempt in ms. Default 10000. */
  timeoutMs: positiveInt.optional(),
  price: priceSchema.optional(),
  /**
   * Largest `max_tokens` / `max_completion_tokens` a request may ask of this model (the model's
   * output limit). Default `limits.maxOutputTokens`.
   */
  maxOutputTokens: positiveInt.optional(),
});

export const breakerSchema = z.strictObject({
  windowMs: positiveInt,
  minSamples: positiveInt,
  failureRate: z.number().gt(0).max(1),
  consecutive429: positiveInt,
  openMs: positiveInt,
});

/** Attempt and deadline settings; the top-level `router` block holds the defaults. */
const attemptSettings = {
  /** Upstream attempts per request. Default 3. */
  maxAttempts: positiveInt.max(20).optional(),
  /** Time budget of a whole request in ms. Default 15000. */
  deadlineMs: positiveInt.optional(),
  /** Fall back when a model's context window is exceeded instead of stopping. Default false. */
  fallbackOnContextLength: z.boolean().optional(),
};

export const pipelineSchema = z.strictObject({
  /** The chain, in the DSL of SPEC §2. */
  chain: z.string().min(1),
  description: z.string().optional(),
  ...attemptSettings,
  /** Per-pipeline breaker overrides. */
  breaker: breakerSchema.partial().optional(),
});

/** How much of the account's capacity the deployment may take (AWS mode, read at synth time). */
export const awsCapacitySchema = z.strictObject({
  /**
   * Concurrent executions reserved for the API function: guaranteed to it, and also its ceiling.
   * Reserving takes them out of the account's unreserved pool (which every other function shares,
   * and which AWS keeps at 100 or more). Default: none (the API draws on the unreserved pool).
   */
  apiReservedConcurrency: z.number().int().min(1).max(10_000).optional(),
  /** Most worker instances the job queue drives at once (SQS `maxConcurrency`, 2–1000). Default 10. */
  workerMaxConcurrency: z.number().int().min(2).max(1000).optional(),
  /** Steady requests per second the API stage accepts before API Gateway answers 429. Default 500. */
  stageRateLimit: z.number().int().min(1).max(10_000).optional(),
  /** Requests the stage accepts in a burst above the rate. Default twice `stageRateLimit`. */
  stageBurstLimit: z.number().int().min(0).max(5000).optional(),
});

/** API Gateway's classic integration timeout in s: the default, and today's behaviour. */
export const DEFAULT_INTEGRATION_TIMEOUT_SECONDS = 29;

/**
 * How long a request may run in AWS. A pipeline's `deadlineMs` is the time to the first byte (the
 * window in which fallback works) and must end inside the integration timeout; a committed stream
 * may then run until the integration timeout ends it. API Gateway's REST response streaming allows
 * up to 900 s (15 min) with no quota increase.
 */
export const awsStreamingSchema = z
  .strictObject({
    /** API Gateway's integration timeout in s (1–900): the longest any request or stream runs. Default 29. */
    integrationTimeoutSeconds: z.number().int().min(1).max(900).optional(),
    /**
     * The API function's timeout in s (1–900). Default `integrationTimeoutSeconds` + 1 (at most
     * 900), so the function outlives the connection and settles its ledger.
     */
    functionTimeoutSeconds: z.number().int().min(1).max(900).optional(),
  })
  .refine(
    (s) =>
      s.functionTimeoutSeconds === undefined ||
      s.functionTimeoutSeconds >= (s.integrationTimeoutSeconds ?? DEFAULT_INTEGRATION_TIMEOUT_SECONDS),
    {
      message:
        'must be at least integrationTimeoutSeconds (default 29): the function would cut streams short',
      path: ['functionTimeoutSeconds'],
    },
  );

/** AWS mode settings. */
export const awsSchema = z.strictObject({
  /** Prefix of the SSM parameters: chains live at `<ssmPrefix>/chains/<pipeline>`. Default `/switchyard`. */
  ssmPrefix: z
    .string()
    .regex(/^\/[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/, 'must be an SSM path such as /switchyard')
    .default('/switchyard'),
  /**
   * How long a Lambda container trusts its snapshot of `<ssmPrefix>` (chain overrides, caller keys,
   * provider keys stored there), in ms, ±20 % jitter per container. Default 30000.
   */
  chainCacheMs: z.number().int().nonnegative().default(30_000),
  /** The oldest a last good caller-key set may be while SSM fails, in ms; then callers get 503. Default 300000. */
  callerKeysMaxStaleMs: z.number().int().positive().default(300_000),
  /** How long a provider key stored outside `<ssmPrefix>` is trusted, in ms, ±20 % jitter. Default 300000. */
  providerKeyCacheMs: z.number().int().positive().default(300_000),
  /** E-mail address subscribed to the alarm topic (confirm the mail AWS sends). Default: none. */
  alarmEmail: z.email().optional(),
  capacity: awsCapacitySchema.optional(),
  streaming: awsStreamingSchema.optional(),
});

const keyName = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'key names may contain letters, digits and - _ .');

/**
 * Caller authentication: key name → SHA-256 (hex) of the key. Keys themselves are never stored.
 * An empty `keys` refuses every caller.
 */
export const authSchema = z.strictObject({
  keys: z.record(keyName, z.string().regex(/^[a-f0-9]{64}$/, 'must be the lowercase hex SHA-256 of the key')),
  /**
   * Names of the keys that may read `/v1/breakers`, `/v1/pipelines` and every scheduled job. The
   * names may live in `keys` or, in AWS, in the SSM caller-keys parameter. Default none.
   */
  operatorKeys: z.array(keyName).optional(),
});

/** Bounds on what one request may ask for; every field has a default. */
export const limitsSchema = z.strictObject({
  /** Most messages in one request. Default 1000. */
  maxMessages: positiveInt.max(1_000_000).default(1_000),
  /** Largest `max_tokens` / `max_completion_tokens` for a model without its own `maxOutputTokens`. Default 32768. */
  maxOutputTokens: positiveInt.default(32_768),
  /** Longest caller-supplied name (a pipeline header, a model) echoed in an error, in characters. Default 128. */
  maxEchoChars: positiveInt.max(2_000).default(128),
});

/** Webhook delivery settings shared by every schedule. */
export const webhooksSchema = z.strictObject({
  /** Accept `http://` URLs beyond loopback (e.g. a receiver inside a private network). Default false. */
  allowHttp: z.boolean().default(false),
  /** Most bytes read from a receiver's response body; the rest is discarded. Default 4096. */
  maxResponseBytes: positiveInt.max(1_048_576).default(4_096),
});

/** Where a scheduled job's answer is delivered: a webhook signed with HMAC-SHA256 over the body. */
export const deliverSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  /** Secret for the signature: an SSM SecureString (`/…`) or Secrets Manager name (AWS mode). */
  secretName: z.string().min(1).optional(),
  /** Environment variable with the secret (local mode). */
  secretEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
    .optional(),
});

/** One job of a schedule's fan-out: a stable id and the chat request to run. */
export const scheduledJobSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'may contain only letters, digits and - _ . (at most 64)'),
  request: chatCompletionBodySchema.omit({ stream: true, stream_options: true }),
});

export const scheduleSchema = z.strictObject({
  /** EventBridge `rate(...)` or `cron(...)`. */
  expression: scheduleExpressionSchema,
  /** The pipeline every job of this schedule runs on. */
  pipeline: z.string().min(1),
  jobs: z.array(scheduledJobSchema).min(1, 'must hold at least one job'),
  /** Spread the fan-out over this many seconds (0–900) to flatten the cron spike. Default 0. */
  spreadSeconds: z.number().int().min(0).max(900).optional(),
  deliver: deliverSchema.optional(),
  /**
   * Names of the caller keys that may read this schedule's jobs with `GET /v1/jobs/{id}` (operator
   * keys always may). Default none: with authentication on, only operators read them.
   */
  readers: z.array(keyName).optional(),
});

/** Durable job settings. */
export const jobsSchema = z.strictObject({
  /** Receives before a job's message moves to the dead-letter queue. Default 3. */
  maxReceiveCount: z.number().int().min(1).max(100).default(3),
  /** Days a job record is kept (TTL), and the queues' retention. Default 14. */
  retentionDays: z.number().int().min(1).max(14).default(14),
});

const configObjectSchema = z.strictObject({
  providers: z.record(name, providerSchema),
  models: z.record(chainName, modelSchema),
  pipelines: z.record(pipelineName, pipelineSchema).default({}),
  breaker: breakerSchema.partial().optional(),
  router: z.strictObject(attemptSettings).optional(),
  aws: awsSchema.optional(),
  auth: authSchema.optional(),
  schedules: z
    .record(
      z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'schedule names may contain only letters, digits, - and _'),
      scheduleSchema,
    )
    .optional(),
  jobs: jobsSchema.optional(),
  limits: limitsSchema.optional(),
  webhooks: webhooksSchema.optional(),
});

/** The whole config file; also checks that webhooks are https:// outside loopback unless allowed. */
export const configSchema = configObjectSchema
  // A signed answer travels in clear text only where the operator said so, or on this machine.
  .superRefine((config, ctx) => {
    if (config.webhooks?.allowHttp) return;
    for (const [name, schedule] of Object.entries(config.schedules ?? {})) {
      const url = schedule.deliver && new URL(schedule.deliver.url);
      if (url && url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
        ctx.addIssue({
          code: 'custom',
          path: ['schedules', name, 'deliver', 'url'],
          message: 'must be https:// (http:// only to loopback, or with webhooks.allowHttp: true)',
        });
      }
    }
  });

export type ProviderConfig = z.infer<typeof providerSchema>;
export type ModelConfig = z.infer<typeof modelSchema>;
export type PipelineConfig = z.infer<typeof pipelineSchema>;
export type SwitchyardConfig = z.infer<typeof configSchema>;
export type AwsConfig = z.infer<typeof awsSchema>;
export type ScheduleConfig = z.infer<typeof scheduleSchema>;
export type DeliverConfig = z.infer<typeof deliverSchema>;
export type LimitsConfig = z.infer<typeof limitsSchema>;
export type WebhooksConfig = z.infer<typeof webhooksSchema>;
export type AuthConfig = z.infer<typeof authSchema>;
