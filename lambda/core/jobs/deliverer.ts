import type { JobDelivery } from './job.js';

/** What every webhook body carries, whatever its door renders: the job id its receiver de-duplicates on. */
export interface WebhookPayload {
  jobId: string;
}

/** What one delivery attempt came to. `reason` is short and never holds the body. */
export type DeliveryOutcome = { ok: true; status: number } | { ok: false; reason: string };

/**
 * Sends a finished job's answer to its receiver (an HMAC-signed webhook in both modes). A 2xx is
 * `ok`; anything else, the worker treats as "not delivered" and tries again on the next receive.
 */
export interface Deliverer {
  /** Sends `body` (the door's webhook body, `JobFormat.webhookBody`) as JSON, signed. */
  deliver(delivery: JobDelivery, body: WebhookPayload): Promise<DeliveryOutcome>;
}
