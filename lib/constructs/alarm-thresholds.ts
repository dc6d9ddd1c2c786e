import type { AwsAlarmsConfig } from '../../lambda/core/catalog/aws-alarms-schema.js';

/**
 * The thresholds no config field sets. Every evaluation period is 5 minutes; "two periods" means
 * two periods in a row.
 */
export const ALARM_THRESHOLDS = {
  /** Breakers quarantined (credential refused, model gone) in 5 min. */
  quarantineOpenings: 1,
  /** API function errors (crashes, timeouts) in 5 min. */
  apiErrors: 5,
  /** API function throttles (requests refused for concurrency) in 5 min. */
  apiThrottles: 10,
  /** Worker invocations that failed as a whole (crash, timeout: the batch goes back) in 5 min. */
  workerErrors: 3,
  /** Scheduler invocations that failed (a fan-out that did not finish; Lambda retries it) in 5 min. */
  schedulerErrors: 1,
  /** Messages waiting in a dead-letter queue. */
  deadLetters: 1,
  /** DynamoDB throttle events (reads + writes) of one table in 5 min, two periods. */
  tableThrottles: 10,
  /** Failed breaker store calls in 5 min, two periods (one blip is routed around). */
  breakerStoreFailures: 10,
  /** Failed admission store calls in 5 min (a closed policy answers 503 meanwhile). */
  admissionStoreFailures: 5,
  /** Failed SSM snapshot reads in 5 min, two periods (the last good snapshot serves meanwhile). */
  ssmSnapshotFailures: 10,
} as const;

/** Every threshold the alarms use: the fixed ones and `aws.alarms` with its defaults worked out. */
export type AlarmThresholds = typeof ALARM_THRESHOLDS & Required<AwsAlarmsConfig>;

/**
 * `aws.alarms` over the fixed thresholds. `apiLatencyP99Ms` defaults to 80 % of the integration
 * timeout: a p99 that close to it means callers are about to meet API Gateway's 504.
 */
export function alarmThresholds(alarms: AwsAlarmsConfig, integrationTimeoutSeconds: number): AlarmThresholds {
  return {
    ...ALARM_THRESHOLDS,
    ...alarms,
    apiLatencyP99Ms: alarms.apiLatencyP99Ms ?? Math.round(integrationTimeoutSeconds * 1000 * 0.8),
  };
}
