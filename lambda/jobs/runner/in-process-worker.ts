import type { Catalog } from '../../core/catalog/catalog.js';
import type { Gateway } from '../../core/gateway/gateway.js';
import { DELIVERY_TIMEOUT_MS, jobLeaseMs } from '../../core/jobs/job-lease.js';
import type { JobAdmission, JobStore } from '../../core/jobs/job-ports.js';
import { runJob } from '../../core/jobs/run-job.js';
import type { Logger } from '../../core/logger.js';
import type { Clock } from '../../core/time.js';
import { chatJobFormat } from '../../doors/jobs/job-format.js';
import { createDeliverySecrets, type SecretReader } from '../job-secrets.js';
import { createWebhookDeliverer } from '../webhook-deliverer.js';
import { createLocalJobRunner, type JobQueueConsumer, type LocalJobRunner } from './queue-poller.js';

export interface LocalJobWorkerOptions {
  store: JobStore;
  consumer: JobQueueConsumer;
  gateway: Gateway;
  catalog: Catalog;
  env: NodeJS.ProcessEnv;
  log: Logger;
  clock: Clock;
  /** Reads `deliver.secretName` secrets; locally only `secretEnv` is needed. */
  readSecret?: SecretReader | undefined;
  /** Jobs at once. Default 4. */
  concurrency?: number | undefined;
  /** Seconds before a job that must run again is visible. Default 5. */
  retryDelaySeconds?: number | undefined;
  pollIntervalMs?: number | undefined;
  /** The pipelines' admission limits (the gateway's `jobAdmission`). Absent: every run is admitted. */
  admission?: JobAdmission | undefined;
}

/**
 * The in-process worker of `switchyard serve` and `run-schedule`: `runJob` over the gateway, with
 * signed webhook deliveries, polling the given queue. Call `start()`; `stop()` on shutdown.
 */
export function createLocalJobWorker(options: LocalJobWorkerOptions): LocalJobRunner {
  const { store, gateway, clock, log } = options;
  const deliverer = createWebhookDeliverer({
    secret: createDeliverySecrets({ env: options.env, readSecret: options.readSecret }),
    timeoutMs: DELIVERY_TIMEOUT_MS,
    webhooks: options.catalog.config.webhooks,
    clock,
  });
  const leaseMs = jobLeaseMs(options.catalog);
  return createLocalJobRunner({
    consumer: options.consumer,
    log,
    concurrency: options.concurrency,
    retryDelaySeconds: options.retryDelaySeconds,
    pollIntervalMs: options.pollIntervalMs,
    run: (jobId, signal) =>
      runJob(jobId, {
        store,
        gateway,
        format: chatJobFormat,
        deliverer,
        clock,
        leaseMs,
        log,
        signal,
        admission: options.admission,
      }),
  });
}
