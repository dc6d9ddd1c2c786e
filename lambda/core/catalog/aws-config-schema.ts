/** The `aws` section of the config: what only a deployment reads. Every default is filled here. */
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { awsAlarmsSchema } from './aws-alarms-schema.js';
import { awsComputeFields } from './aws-compute-schema.js';
import { awsDeployFields, defaultSsmPrefix } from './aws-deploy-config-schema.js';
import { awsRegionFields, checkRegionFields } from './aws-regions-config-schema.js';

/** How much of the account's capacity the deployment may take (AWS mode, read at synth time). */
export const awsCapacitySchema = lazySchema(() =>
  z.strictObject({
    /**
     * Concurrent executions reserved for the API function: guaranteed to it, and also its ceiling.
     * Reserving takes them out of the account's unreserved pool (which every other function shares,
     * and which AWS keeps at 100 or more). Default: none (the API draws on the unreserved pool).
     */
    apiReservedConcurrency: z.number().int().min(1).max(10_000).optional(),
    /** Most worker instances the job queue drives at once (SQS `maxConcurrency`, 2–1000). Default 10. */
    workerMaxConcurrency: z.number().int().min(2).max(1000).default(10),
    /** Steady requests per second the API stage accepts before API Gateway answers 429. Default 500. */
    stageRateLimit: z.number().int().min(1).max(10_000).default(500),
    /**
     * Requests the stage accepts in a burst above the rate. Default twice `stageRateLimit`, worked
     * out by the stack (`lib/deploy-settings.ts`) because it follows another field.
     */
    stageBurstLimit: z.number().int().min(0).max(5000).optional(),
  }),
);

/**
 * How long a request may run in AWS. A pipeline's `deadlineMs` is the time to the first byte (the
 * window in which fallback works) and must end inside the integration timeout; a committed stream
 * may then run until the integration timeout ends it. API Gateway's REST response streaming allows
 * up to 900 s (15 min) with no quota increase.
 */
export const awsStreamingSchema = lazySchema(() =>
  z
    .strictObject({
      /** API Gateway's integration timeout in s (1–900): the longest any request or stream runs. Default 29. */
      integrationTimeoutSeconds: z.number().int().min(1).max(900).default(29),
      /**
       * The API function's timeout in s (1–900). Default `integrationTimeoutSeconds` + 1 (at most
       * 900), worked out by the stack, so the function outlives the connection and settles its ledger.
       */
      functionTimeoutSeconds: z.number().int().min(1).max(900).optional(),
    })
    .refine(
      (s) =>
        s.functionTimeoutSeconds === undefined || s.functionTimeoutSeconds >= s.integrationTimeoutSeconds,
      {
        message:
          'must be at least integrationTimeoutSeconds (default 29): the function would cut streams short',
        path: ['functionTimeoutSeconds'],
      },
    ),
);

/**
 * Traces on AWS through the AWS Distro for OpenTelemetry (ADOT) Lambda layer
 * (docs/operations.md#traces-on-aws): the layer registers the OpenTelemetry SDK and a collector,
 * and Switchyard's request and attempt spans go to it. Off unless `adotLayerArn` is set.
 */
export const awsTracingSchema = lazySchema(() =>
  z.strictObject({
    /**
     * Version ARN of an ADOT Lambda layer for Node.js in the stack's region and architecture (arm64),
     * e.g. `arn:aws:lambda:us-east-1:901920570463:layer:aws-otel-nodejs-arm64-ver-1-30-2:1`.
     * Default: none (no layer, no traces on AWS).
     */
    adotLayerArn: z
      .string()
      .regex(
        /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:layer:[A-Za-z0-9_-]+:\d+$/,
        'must be a Lambda layer version ARN such as arn:aws:lambda:us-east-1:901920570463:layer:aws-otel-nodejs-arm64-ver-1-30-2:1',
      )
      .optional(),
    /**
     * The layer's start-up script (`AWS_LAMBDA_EXEC_WRAPPER`). Default `/opt/otel-handler` (the
     * `aws-otel-nodejs` layers); the `AWSOpenTelemetryDistroJs` layers use `/opt/otel-instrument`.
     */
    execWrapper: z
      .string()
      .regex(/^\/opt\/[A-Za-z0-9_./-]+$/, 'must be a script under /opt such as /opt/otel-handler')
      .default('/opt/otel-handler'),
    /**
     * Where the layer's collector reads its configuration (`OPENTELEMETRY_COLLECTOR_CONFIG_URI`,
     * e.g. `s3://bucket.s3.eu-west-1.amazonaws.com/collector.yaml`). Default: the layer's own, which
     * exports to AWS X-Ray.
     */
    collectorConfigUri: z.string().trim().min(1).optional(),
  }),
);

/** An SSM path prefix such as `/switchyard`. */
export const ssmPrefixSchema = lazySchema(() =>
  z.string().regex(/^\/[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/, 'must be an SSM path such as /switchyard'),
);

/** AWS mode settings. */
const awsFields = lazySchema(() =>
  z.strictObject({
    ...awsDeployFields(),
    ...awsComputeFields(),
    /**
     * Prefix of the SSM parameters: chains live at `<ssmPrefix>/chains/<pipeline>`. Default
     * `/switchyard`, or `/switchyard-<stage>` with a `stage`.
     */
    ssmPrefix: ssmPrefixSchema.optional(),
    /**
     * How long a Lambda container trusts its snapshot of `<ssmPrefix>` (chain overrides, caller keys,
     * provider keys stored there), in ms, ±20 % jitter per container. Default 30000.
     */
    chainCacheMs: z.number().int().nonnegative().default(30_000),
    /** The oldest a last good caller-key set may be while SSM fails, in ms; then callers get 503. Default 300000. */
    callerKeysMaxStaleMs: z.number().int().positive().default(300_000),
    /** How long a provider key stored outside `<ssmPrefix>` is trusted, in ms, ±20 % jitter. Default 300000. */
    providerKeyCacheMs: z.number().int().positive().default(300_000),
    /**
     * How long a container trusts a caller key it found in the caller-keys table, in ms: a revoked key
     * stops working within this time. Default 30000.
     */
    callerKeyCacheMs: z.number().int().positive().max(3_600_000).default(30_000),
    /**
     * How long a container remembers that no caller key has a presented hash, in ms: a new key may be
     * refused for this long in a container that saw it just before it was added. Default 5000.
     */
    callerKeyMissCacheMs: z.number().int().nonnegative().max(300_000).default(5_000),
    /**
     * The most one key read (SSM snapshot, provider key, caller key) spends, retries with jittered
     * backoff included, in ms. Counted before a pipeline's `deadlineMs` starts, and well inside the
     * API's integration timeout. Default 3000.
     */
    keyReadBudgetMs: z.number().int().min(100).max(10_000).default(3_000),
    /** E-mail address subscribed to the alarm topic (confirm the mail AWS sends). Default: none. */
    alarmEmail: z.email().optional(),
    /** When the alarms page: {@link awsAlarmsSchema}. */
    alarms: awsAlarmsSchema.prefault({}),
    capacity: awsCapacitySchema.prefault({}),
    streaming: awsStreamingSchema.prefault({}),
    tracing: awsTracingSchema.prefault({}),
    /** More than one region: `regions`, `domain`, `breakerState`, `regionalModels`. */
    ...awsRegionFields(),
  }),
);

/** AWS mode settings, with the SSM prefix filled from the stage when the file names none. */
export const awsSchema = lazySchema(() =>
  awsFields
    .superRefine((aws, ctx) =>
      checkRegionFields(aws, (path, message) => ctx.addIssue({ code: 'custom', path, message })),
    )
    .transform((aws) => ({
      ...aws,
      ssmPrefix: aws.ssmPrefix ?? defaultSsmPrefix(aws.stage),
    })),
);

export type AwsConfig = z.output<typeof awsSchema>;
