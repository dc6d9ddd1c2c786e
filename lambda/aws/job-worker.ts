import { createCatalog } from '../core/catalog/catalog.js';
import type { Gateway } from '../core/gateway/gateway.js';
import { jobLeaseMs } from '../core/jobs/job-lease.js';
import { runJob } from '../core/jobs/run-job.js';
import { createDeliverySecrets } from '../jobs/job-secrets.js';
import { createWebhookDeliverer } from '../jobs/webhook-deliverer.js';
import { systemClock } from '../runtime/system-time.js';
import { type AwsRuntime, awsJobs, readSecret } from './aws-runtime.js';
import { powertoolsLogger } from './powertools-evidence.js';
import { parseJobMessage } from './sqs-job-queue.js';

/** The job must come back later: thrown so that the batch reports this one record as failed. */
export class JobNotDoneError extends Error {
  constructor(jobId: string) {
    super(`job ${jobId} returns to the queue`);
    this.name = 'JobNotDoneError';
  }
}

export interface JobWorker {
  /** Handles one message body; throws `JobNotDoneError` when the message must return. */
  process(body: string): Promise<void>;
}

/** The worker's logic for one message, with the AWS job store and a signed-webhook deliverer. */
export function createJobWorker(
  runtime: AwsRuntime,
  gateway: Pick<Gateway, 'resolveTarget' | 'generate'>,
): JobWorker {
  const jobs = awsJobs(runtime);
  if (!jobs) throw new Error('the worker needs SWITCHYARD_JOBS_TABLE and SWITCHYARD_JOB_QUEUE_URL');
  const log = powertoolsLogger(runtime.logger);
  // Longer than any pipeline's deadline plus a delivery; the stack keeps the visibility timeout above it.
  const leaseMs = jobLeaseMs(createCatalog(runtime.config));
  const deliverer = createWebhookDeliverer({
    secret: createDeliverySecrets({ env: runtime.env, readSecret: readSecret(runtime) }),
    allowHttp: runtime.config.webhooks?.allowHttp,
    maxResponseBytes: runtime.config.webhooks?.maxResponseBytes,
  });
  return {
    async process(body) {
      const parsed = parseJobMessage(body);
      if (!parsed.ok) {
        // A message that can never run is dropped with a log line, not retried into the DLQ.
        log.error('malformed job message dropped', { reason: parsed.reason });
        return;
      }
      const { jobId } = parsed.message;
      const outcome = await runJob(jobId, {
        store: jobs.store,
        gateway,
        deliverer,
        clock: systemClock,
        leaseMs,
        log,
      });
      if (outcome === 'retry') throw new JobNotDoneError(jobId);
    },
  };
}
