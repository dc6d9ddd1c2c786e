/**
 * `aws.alarms`: when the deployed alarms page (docs/operations.md#reading-the-alarms). Read at
 * synth time only; every evaluation period is 5 minutes. The thresholds that are not here (store
 * failures, throttles, Lambda errors) are fixed in `lib/constructs/alarm-thresholds.ts`.
 */
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { positiveInt } from './config-fields.js';

const percent = lazySchema(() => z.number().positive().max(100));

export const awsAlarmsSchema = lazySchema(() =>
  z.strictObject({
    /**
     * Requests a 5-minute period needs before a rate alarm (exhausted requests, API 5XX, API latency)
     * judges it, so a handful of failures at night pages nobody. Default 20.
     */
    minRequests: positiveInt.max(1_000_000).default(20),
    /** % of requests exhausted (every route failed or the deadline ran out), two periods in a row. Default 1. */
    exhaustedPercent: percent.default(1),
    /** % of API Gateway answers that are 5XX, two periods in a row. Default 5. */
    api5xxPercent: percent.default(5),
    /**
     * p99 of API Gateway's latency, in ms, three periods in a row. Default: 80 % of
     * `aws.streaming.integrationTimeoutSeconds` (23,200 ms for the default 29 s), worked out by the
     * stack because it follows another field: callers wait almost as long as API Gateway allows.
     */
    apiLatencyP99Ms: positiveInt.max(900_000).optional(),
    /** % of a daily spend cap in use (reservations included) at which its warning fires. Default 80. */
    budgetWarningPercent: percent.default(80),
    /** Age of the oldest job waiting in the job queue, in s. Default 1800 (30 min). */
    oldestJobAgeSeconds: positiveInt.max(1_209_600).default(1_800),
  }),
);

export type AwsAlarmsConfig = z.output<typeof awsAlarmsSchema>;
