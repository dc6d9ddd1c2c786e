import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { webhooksSchema } from '../../../lambda/core/catalog/jobs-config-schema.js';
import type { JobWebhookBody } from '../../../lambda/doors/jobs/job-format.js';
import { createDeliverySecrets } from '../../../lambda/jobs/job-secrets.js';
import { createWebhookDeliverer, signDelivery } from '../../../lambda/jobs/webhook-deliverer.js';
import { startWebhookReceiver, verifyDelivery, verifySignature } from '../../helpers/webhook-receiver.js';

const SECRET = 'whsec-test-0123456789';
const BODY: JobWebhookBody = {
  jobId: 'nightly:acct-1:2026-11-29T03:00:00Z',
  status: 'succeeded',
  pipeline: 'p',
  result: null,
  error: null,
  runs: [
    {
      at: '2026-11-29T03:00:01.000Z',
      reason: 'success',
      attempts: 2,
      route: 'a:429,c:200',
      model: 'c',
      failure_class: null,
    },
  ],
};

const receivers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function receiver(statuses?: number[]) {
  const r = await startWebhookReceiver(SECRET, statuses);
  receivers.push(r);
  return r;
}

const deliverer = (
  options: {
    timeoutMs?: number;
    env?: NodeJS.ProcessEnv;
    allowHttp?: boolean;
    maxResponseBytes?: number;
    fetch?: typeof fetch;
  } = {},
) =>
  createWebhookDeliverer({
    secret: createDeliverySecrets({ env: options.env ?? { HOOK_SECRET: SECRET } }),
    timeoutMs: options.timeoutMs,
    webhooks: webhooksSchema.parse({
      allowHttp: options.allowHttp,
      maxResponseBytes: options.maxResponseBytes,
    }),
    fetch: options.fetch,
    clock: { now: () => 1_780_000_000_000 },
  });

describe('webhook deliverer', () => {
  it('POSTs the JSON body with a signature the receiver can verify, the job id and a timestamp', async () => {
    const r = await receiver();
    const outcome = await deliverer().deliver({ url: r.url, secretEnv: 'HOOK_SECRET' }, BODY);
    expect(outcome).toEqual({ ok: true, status: 200 });
    expect(r.received).toHaveLength(1);
    const [got] = r.received;
    expect(got?.validSignature).toBe(true);
    expect(JSON.parse(got?.body ?? '')).toEqual(BODY);
    expect(got?.headers['x-switchyard-job-id']).toBe(BODY.jobId);
    expect(got?.headers['x-switchyard-timestamp']).toBe('1780000000');
    expect(got?.headers['content-type']).toBe('application/json');
  });

  it('signs sha256=<hex HMAC-SHA256 of timestamp + "." + body>', () => {
    // Computed independently: printf '1780000000.{"a":1}' | openssl dgst -sha256 -hmac k
    const signature = signDelivery('1780000000', '{"a":1}', 'k');
    expect(signature).toBe('sha256=1fd240aaa6c61b8e3e2280aae6b515f4f41d013889096c088f83aa7df2b9a039');
    expect(verifySignature('1780000000', '{"a":1}', signature, 'k')).toBe(true);
    expect(verifySignature('1780000000', '{"a":1} ', signature, 'k')).toBe(false);
    expect(
      verifySignature('1780000000', '{"a":1}', signDelivery('1780000000', '{"a":1}', 'other'), 'k'),
    ).toBe(false);
  });

  it('binds the timestamp: a captured delivery replayed with a fresh timestamp fails verification', async () => {
    const r = await receiver();
    await deliverer().deliver({ url: r.url, secretEnv: 'HOOK_SECRET' }, BODY);
    const [got] = r.received;
    const replayed = { ...got?.headers, 'x-switchyard-timestamp': '1780009999' };
    expect(verifyDelivery(got?.headers ?? {}, got?.body ?? '', SECRET, 1_780_000_000)).toBe(true);
    expect(verifyDelivery(replayed, got?.body ?? '', SECRET, 1_780_009_999)).toBe(false);
  });

  it('is refused by a receiver once older than the 300 s freshness window', async () => {
    const r = await receiver();
    await deliverer().deliver({ url: r.url, secretEnv: 'HOOK_SECRET' }, BODY);
    const [got] = r.received;
    expect(verifyDelivery(got?.headers ?? {}, got?.body ?? '', SECRET, 1_780_000_300)).toBe(true);
    expect(verifyDelivery(got?.headers ?? {}, got?.body ?? '', SECRET, 1_780_000_301)).toBe(false);
  });

  it.each([
    [
      'http://hooks.example.test/x',
      false,
      'refusing http:// beyond loopback (set webhooks.allowHttp to allow http)',
    ],
    ['ftp://127.0.0.1/x', false, 'refusing ftp:// beyond loopback (set webhooks.allowHttp to allow http)'],
  ])('refuses %s without sending anything', async (url, allowHttp, reason) => {
    let sent = 0;
    const counting: typeof fetch = async () => {
      sent += 1;
      return new Response('ok');
    };
    const outcome = await deliverer({ allowHttp, fetch: counting }).deliver(
      { url, secretEnv: 'HOOK_SECRET' },
      BODY,
    );
    expect(outcome).toEqual({ ok: false, reason });
    expect(sent).toBe(0);
  });

  it('sends to http:// beyond loopback when webhooks.allowHttp says so', async () => {
    const urls: string[] = [];
    const recording: typeof fetch = async (url) => {
      urls.push(String(url));
      return new Response('ok');
    };
    const outcome = await deliverer({ allowHttp: true, fetch: recording }).deliver(
      { url: 'http://hooks.internal.test/x', secretEnv: 'HOOK_SECRET' },
      BODY,
    );
    expect(outcome).toEqual({ ok: true, status: 200 });
    expect(urls).toEqual(['http://hooks.internal.test/x']);
  });

  it('reads at most maxResponseBytes of the answer and stops the rest', async () => {
    let written = 0;
    let closed = false;
    const flood = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(16_384, 'x');
      const pump = (): void => {
        while (!closed && written < 64 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      res.on('close', () => {
        closed = true;
      });
      pump();
    });
    await new Promise<void>((resolve) => flood.listen(0, '127.0.0.1', resolve));
    receivers.push({
      close: () =>
        new Promise<void>((resolve) => {
          flood.closeAllConnections();
          flood.close(() => resolve());
        }),
    });
    const { port } = flood.address() as AddressInfo;
    const outcome = await deliverer({ maxResponseBytes: 1_024 }).deliver(
      { url: `http://127.0.0.1:${port}/hook`, secretEnv: 'HOOK_SECRET' },
      BODY,
    );
    expect(outcome).toEqual({ ok: true, status: 200 });
    // The receiver offered 64 MiB; the deliverer hung up long before (socket buffers aside).
    expect(written).toBeLessThan(16 * 1024 * 1024);
  });

  it.each([500, 404, 302])('reports a %i answer as not delivered', async (status) => {
    const r = await receiver([status]);
    const outcome = await deliverer().deliver({ url: r.url, secretEnv: 'HOOK_SECRET' }, BODY);
    expect(outcome).toEqual({ ok: false, reason: `receiver answered ${status}` });
  });

  it('reports a refused connection without the body', async () => {
    const r = await receiver();
    const url = r.url;
    await r.close();
    const outcome = await deliverer().deliver({ url, secretEnv: 'HOOK_SECRET' }, BODY);
    expect(outcome.ok).toBe(false);
    expect(JSON.stringify(outcome)).not.toContain('succeeded');
  });

  it('gives up on a receiver that does not answer within timeoutMs', async () => {
    const { createServer } = await import('node:http');
    const hanging = createServer(() => {});
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    receivers.push({
      close: () =>
        new Promise<void>((resolve) => {
          hanging.closeAllConnections();
          hanging.close(() => resolve());
        }),
    });
    const { port } = hanging.address() as { port: number };
    const outcome = await deliverer({ timeoutMs: 100 }).deliver(
      { url: `http://127.0.0.1:${port}/hook`, secretEnv: 'HOOK_SECRET' },
      BODY,
    );
    expect(outcome).toEqual({ ok: false, reason: 'timed out after 100 ms' });
  });

  it('never sends an unsigned delivery when the secret is missing', async () => {
    const r = await receiver();
    const outcome = await deliverer({ env: {} }).deliver({ url: r.url, secretEnv: 'HOOK_SECRET' }, BODY);
    expect(outcome).toEqual({ ok: false, reason: 'no signing secret (HOOK_SECRET)' });
    expect(r.received).toEqual([]);
  });
});

describe('delivery secrets', () => {
  it('reads secretEnv first, then secretName through the reader', async () => {
    const read = async (name: string) => (name === '/switchyard/hook' ? 'from-ssm' : undefined);
    const secrets = createDeliverySecrets({ env: { HOOK: 'from-env', BLANK: '  ' }, readSecret: read });
    expect(await secrets({ url: 'http://x', secretEnv: 'HOOK', secretName: '/switchyard/hook' })).toBe(
      'from-env',
    );
    expect(await secrets({ url: 'http://x', secretEnv: 'BLANK', secretName: '/switchyard/hook' })).toBe(
      'from-ssm',
    );
    expect(await secrets({ url: 'http://x', secretName: '/switchyard/other' })).toBeUndefined();
    expect(await createDeliverySecrets({ env: {} })({ url: 'http://x', secretName: '/a' })).toBeUndefined();
  });
});
