import { createHmac } from 'node:crypto';
import type { WebhooksConfig } from '../core/catalog/jobs-config-schema.js';
import type { Deliverer, DeliveryOutcome } from '../core/jobs/deliverer.js';
import { DELIVERY_TIMEOUT_MS } from '../core/jobs/job-lease.js';
import { isLoopbackHost } from '../core/loopback.js';
import type { Clock } from '../core/time.js';
import { systemClock } from '../wiring/system-time.js';
import type { DeliverySecret } from './job-secrets.js';

/** The signature header: `sha256=<hex HMAC-SHA256 of timestamp + "." + body>` (docs/security.md). */
export const SIGNATURE_HEADER = 'x-switchyard-signature';
export const JOB_ID_HEADER = 'x-switchyard-job-id';
/** Seconds since the epoch when this delivery attempt was signed; part of the signed text. */
export const TIMESTAMP_HEADER = 'x-switchyard-timestamp';
/** How old a delivery a receiver should still accept, in seconds (what docs/security.md recommends). */
export const RECOMMENDED_FRESHNESS_SECONDS = 300;

/**
 * `sha256=` + the hex HMAC-SHA256 of `timestamp + "." + body` under `secret`: what receivers
 * recompute and compare. The timestamp is inside the signature, so a captured delivery cannot be
 * replayed later with a fresh timestamp.
 *
 * @param timestamp the `x-switchyard-timestamp` value (epoch seconds, as sent).
 */
export function signDelivery(timestamp: string, body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex')}`;
}

export interface WebhookDelivererOptions {
  /** The signing secret of a delivery target. No secret, no delivery: an unsigned POST is never sent. */
  secret: DeliverySecret;
  /** Upper bound of one delivery, in ms. Default {@link DELIVERY_TIMEOUT_MS} (10000). */
  timeoutMs?: number | undefined;
  /** Config `webhooks`: whether `http://` receivers beyond loopback are accepted, and how much of an answer is read. */
  webhooks: WebhooksConfig;
  clock?: Clock | undefined;
  /** Default: the global `fetch`. */
  fetch?: typeof fetch | undefined;
}

/** Why a URL may not receive a signed answer, or undefined when it may. */
function refusedUrl(url: string, allowHttp: boolean): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'webhook URL does not parse';
  }
  if (parsed.protocol === 'https:') return undefined;
  if (parsed.protocol === 'http:' && (allowHttp || isLoopbackHost(parsed.hostname))) return undefined;
  return `refusing ${parsed.protocol}// beyond loopback (set webhooks.allowHttp to allow http)`;
}

/** Reads at most `max` bytes of the answer, then cancels the rest: a receiver cannot make us buffer more. */
async function drainBounded(response: Response, max: number): Promise<void> {
  const reader = response.body?.getReader();
  if (!reader) return;
  let read = 0;
  try {
    while (read <= max) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
    }
    await reader.cancel();
  } catch {
    // The receiver's body is not ours to judge: its status already decided.
  }
}

/**
 * Delivers finished jobs as a signed JSON POST. A 2xx is delivered; a redirect, any other status,
 * a timeout or a refused connection is not, and the job's message returns for another try. The
 * body is never logged or echoed in a reason (it holds the model's answer). Each attempt is
 * signed afresh with its own timestamp.
 */
export function createWebhookDeliverer(options: WebhookDelivererOptions): Deliverer {
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const clock = options.clock ?? systemClock;
  const send = options.fetch ?? fetch;
  const { allowHttp, maxResponseBytes } = options.webhooks;

  return {
    async deliver(delivery, payload): Promise<DeliveryOutcome> {
      const refused = refusedUrl(delivery.url, allowHttp);
      if (refused !== undefined) return { ok: false, reason: refused };
      const secret = await options.secret(delivery);
      if (secret === undefined) {
        const where = delivery.secretEnv ?? delivery.secretName ?? 'none configured';
        return { ok: false, reason: `no signing secret (${where})` };
      }
      const body = JSON.stringify(payload);
      const timestamp = String(Math.floor(clock.now() / 1000));
      try {
        const response = await send(delivery.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'switchyard-webhook',
            [SIGNATURE_HEADER]: signDelivery(timestamp, body, secret),
            [JOB_ID_HEADER]: payload.jobId,
            [TIMESTAMP_HEADER]: timestamp,
          },
          body,
          // A redirect would resend the signed answer somewhere the config never named.
          redirect: 'manual',
          signal: AbortSignal.timeout(timeoutMs),
        });
        await drainBounded(response, maxResponseBytes);
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
