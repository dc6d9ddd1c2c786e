import { powertoolsLogger } from '../../aws/powertools-evidence.js';
import { createCatalog } from '../../core/catalog/catalog.js';
import type { Gateway } from '../../core/gateway/gateway.js';
import { jobLeaseMs } from '../../core/jobs/job-lease.js';
import type { JobAdmission } from '../../core/jobs/job-ports.js';
import { runJob } from '../../core/jobs/run-job.js';
import { chatJobFormat } from '../../doors/jobs/job-format.js';
import { type AwsContainer, awsJobs, readSecret } from '../../wiring/aws-container.js';
import { systemClock } from '../../wiring/system-time.js';
import { createDeliverySecrets } from '../job-secrets.js';
import { createWebhookDeliverer } from '../webhook-deliverer.js';
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
  container: AwsContainer,
  gateway: Pick<Gateway, 'resolveTarget' | 'generate'>,
  admission?: JobAdmission,
): JobWorker {
  const jobs = awsJobs(container);
  if (!jobs) throw new Error('the worker needs SWITCHYARD_JOBS_TABLE and SWITCHYARD_JOB_QUEUE_URL');
  const log = powertoolsLogger(container.logger);
  // Longer than any pipeline's deadline plus a delivery; the stack keeps the visibility timeout above it.
  const leaseMs = jobLeaseMs(createCatalog(container.config));
  const deliverer = createWebhookDeliverer({
    secret: createDeliverySecrets({ env: container.env, readSecret: readSecret(container) }),
    webhooks: container.config.webhooks,
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
        format: chatJobFormat,
        clock: systemClock,
        leaseMs,
        log,
        admission,
      });
      if (outcome === 'retry') throw new JobNotDoneError(jobId);
    },
  };
}
