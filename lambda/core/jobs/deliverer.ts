import { type JobRunView, jobResultView, jobRunView } from '../../doors/jobs/job-view.js';
import { type JobDelivery, type JobRecord, publicJobId } from './job.js';

/**
 * The JSON body of a webhook delivery. The signature covers these exact bytes; receivers should
 * de-duplicate on `jobId` (a crash between the receiver's 2xx and our bookkeeping can resend).
 */
export interface JobWebhookBody {
  jobId: string;
  /** `succeeded` or `failed`: only finished jobs are delivered. */
  status: 'succeeded' | 'failed';
  pipeline: string;
  /** The answer as an OpenAI `chat.completion`, or null for a failed job. */
  result: ReturnType<typeof jobResultView>;
  /** The terminal error of a failed job, else null. */
  error: { code: string; message: string } | null;
  runs: JobRunView[];
}

/** What one delivery attempt came to. `reason` is short and never holds the body. */
export type DeliveryOutcome = { ok: true; status: number } | { ok: false; reason: string };

/**
 * Sends a finished job's answer to its receiver (an HMAC-signed webhook in both modes). A 2xx is
 * `ok`; anything else, the worker treats as "not delivered" and tries again on the next receive.
 */
export interface Deliverer {
  deliver(delivery: JobDelivery, body: JobWebhookBody): Promise<DeliveryOutcome>;
}

/** The webhook body for a finished record, or undefined when the record is not finished. */
export function webhookBody(record: JobRecord): JobWebhookBody | undefined {
  if (record.status !== 'succeeded' && record.status !== 'failed') return undefined;
  return {
    jobId: publicJobId(record),
    status: record.status,
    pipeline: record.pipeline,
    result: jobResultView(record),
    error: record.error ?? null,
    runs: record.runs.map(jobRunView),
  };
}
