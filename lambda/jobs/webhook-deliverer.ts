import { createHmac } from 'node:crypto';
import type { Deliverer, DeliveryOutcome } from '../core/jobs/deliverer.js';
import type { Clock } from '../core/time.js';
import { systemClock } from '../runtime/system-time.js';
import type { DeliverySecret } from './job-secrets.js';

/** The signature header: `sha256=<hex HMAC-SHA256 of the exact body>`. */
export const SIGNATURE_HEADER = 'x-switchyard-signature';
export const JOB_ID_HEADER = 'x-switchyard-job-id';
/** Seconds since the epoch when the delivery was sent (informational; the body is what is signed). */
export const TIMESTAMP_HEADER = 'x-switchyard-timestamp';

/** `sha256=` + the hex HMAC-SHA256 of `body` under `secret`: what receivers recompute and compare. */
export function signBody(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

export interface WebhookDelivererOptions {
  /** The signing secret of a delivery target. No secret, no delivery: an unsigned POST is never sent. */
  secret: DeliverySecret;
  /** Upper bound of one delivery, in ms. Default 10000. */
  timeoutMs?: number | undefined;
  clock?: Clock | undefined;
  /** Default: the global `fetch`. */
  fetch?: typeof fetch | undefined;
}

/**
 * Delivers finished jobs as a signed JSON POST. A 2xx is delivered; a redirect, any other status,
 * a timeout or a refused connection is not, and the job's message returns for another try. The
 * body is never logged or echoed in a reason (it holds the model's answer).
 */
export function createWebhookDeliverer(options: WebhookDelivererOptions): Deliverer {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const clock = options.clock ?? systemClock;
  const send = options.fetch ?? fetch;

  return {
    async deliver(delivery, payload): Promise<DeliveryOutcome> {
      const secret = await options.secret(delivery);
      if (secret === undefined) {
        const where = delivery.secretEnv ?? delivery.secretName ?? 'none configured';
        return { ok: false, reason: `no signing secret (${where})` };
      }
      const body = JSON.stringify(payload);
      try {
        const response = await send(delivery.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'switchyard-webhook',
            [SIGNATURE_HEADER]: signBody(body, secret),
            [JOB_ID_HEADER]: payload.jobId,
            [TIMESTAMP_HEADER]: String(Math.floor(clock.now() / 1000)),
          },
          body,
          // A redirect would resend the signed answer somewhere the config never named.
          redirect: 'manual',
          signal: AbortSignal.timeout(timeoutMs),
        });
        // Drain, so the connection can be reused; the receiver's text is not ours to log.
        await response.arrayBuffer().catch(() => undefined);
        if (response.status >= 200 && response.status < 300) return { ok: true, status: response.status };
        return { ok: false, reason: `receiver answered ${response.status}` };
      } catch (error) {
        const name = error instanceof Error ? error.name : 'Error';
        const code =
          error instanceof Error && error.cause instanceof Error && 'code' in error.cause
            ? ` ${String(error.cause.code)}`
            : '';
        return {
          ok: false,
          reason: name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : `${name}${code}`,
        };
      }
    },
  };
}
