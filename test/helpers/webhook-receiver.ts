import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One POST the receiver got: the raw body as sent, and its headers. */
export interface ReceivedWebhook {
  body: string;
  headers: Record<string, string | string[] | undefined>;
  /**
   * True when `x-switchyard-signature` is the HMAC-SHA256 of `timestamp + "." + body` under the
   * receiver's secret (freshness is checked by {@link verifyDelivery}, not here: tests use fake clocks).
   */
  validSignature: boolean;
}

/** Verifies `sha256=<hex>` over `timestamp + "." + body`, in constant time: what a real receiver does. */
export function verifySignature(
  timestamp: string | undefined,
  body: string,
  header: string | undefined,
  secret: string,
): boolean {
  const mac = createHmac('sha256', secret)
    .update(`${timestamp ?? ''}.${body}`, 'utf8')
    .digest('hex');
  const expected = Buffer.from(`sha256=${mac}`);
  const given = Buffer.from(header ?? '');
  return timestamp !== undefined && given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The receiver snippet of docs/security.md: a valid signature AND a timestamp within
 * `toleranceSeconds` of the receiver's clock (`nowSeconds`). Anything else is refused.
 */
export function verifyDelivery(
  headers: Record<string, string | string[] | undefined>,
  body: string,
  secret: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  const timestamp = headers['x-switchyard-timestamp'];
  const signature = headers['x-switchyard-signature'];
  if (typeof timestamp !== 'string' || typeof signature !== 'string') return false;
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds)
    return false;
  return verifySignature(timestamp, body, signature, secret);
}

/**
 * A webhook receiver on 127.0.0.1: records every POST and answers from a status script (the last
 * status repeats; default 200).
 */
export async function startWebhookReceiver(secret: string, statuses: number[] = [200]) {
  const received: ReceivedWebhook[] = [];
  let served = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const signature = req.headers['x-switchyard-signature'];
      const timestamp = req.headers['x-switchyard-timestamp'];
      received.push({
        body,
        headers: req.headers,
        validSignature: verifySignature(
          typeof timestamp === 'string' ? timestamp : undefined,
          body,
          typeof signature === 'string' ? signature : undefined,
          secret,
        ),
      });
      const status = statuses[Math.min(served, statuses.length - 1)] ?? 200;
      served += 1;
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    /** Deliveries per job id (from the body). */
    byJob(): Map<string, number> {
      const counts = new Map<string, number>();
      for (const r of received) {
        const id = (JSON.parse(r.body) as { jobId: string }).jobId;
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      return counts;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
