/**
 * The `metrics` and `statusPage` blocks (docs/configuration.md#metrics-and-the-status-page): what a
 * person or a Prometheus server may watch of a running gateway. Both are off unless enabled.
 */
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { positiveInt } from './config-fields.js';

/** `GET /metrics`, Prometheus text format (docs/operations.md#metrics). */
export const metricsSchema = lazySchema(() =>
  z.strictObject({
    /** Serve `GET /metrics`. Default false (the route answers 404). */
    enabled: z.boolean().default(false),
    /**
     * Upper bounds of the latency histograms' buckets, in ms, ascending; `+Inf` is always added.
     * Default 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000.
     */
    latencyBucketsMs: z
      .array(positiveInt)
      .min(1)
      .max(30)
      .refine((b) => b.every((v, i) => i === 0 || v > (b[i - 1] ?? 0)), 'must be strictly ascending')
      .default([50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000]),
  }),
);

/** `GET /status` (the page) and `GET /v1/status` (what it shows, as JSON). */
export const statusPageSchema = lazySchema(() =>
  z
    .strictObject({
      /** Serve the status page and its JSON. Default false (both routes answer 404). */
      enabled: z.boolean().default(false),
      /** Most recent requests the page lists, with their attempt trail (kept in this process's memory). Default 50. */
      recentRequests: positiveInt.max(1_000).default(50),
      /** How often the page polls `GET /v1/status`, in ms. At least 500. Default 2000. */
      refreshMs: z.number().int().min(500).max(60_000).default(2_000),
      /**
       * The operator console on the page and its endpoints `/v1/operator/*` (docs/operations.md#the-operator-console):
       * explain a pipeline, set, pin, clear or roll back its override, run a canary. Needs caller
       * authentication and an operator key (`auth.operatorKeys`); on AWS it also grants the API's role
       * `ssm:PutParameter`/`ssm:DeleteParameter` on `<prefix>/chains/*`. Default false.
       */
      console: z.boolean().default(false),
    })
    .refine((page) => !page.console || page.enabled, {
      message: 'the operator console lives on the status page: set statusPage.enabled: true as well',
      path: ['console'],
    }),
);

export type MetricsSettings = z.output<typeof metricsSchema>;
export type StatusPageSettings = z.output<typeof statusPageSchema>;
