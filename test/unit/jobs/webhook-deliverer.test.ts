import { afterEach, describe, expect, it } from 'vitest';
import type { JobWebhookBody } from '../../../lambda/core/jobs/deliverer.js';
import { createDeliverySecrets } from '../../../lambda/jobs/job-secrets.js';
import { createWebhookDeliverer, signBody } from '../../../lambda/jobs/webhook-deliverer.js';
import { startWebhookReceiver, verifySignature } from '../../helpers/webhook-receiver.js';

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

const deliverer = (options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}) =>
  createWebhookDeliverer({
    secret: createDeliverySecrets({ env: options.env ?? { HOOK_SECRET: SECRET } }),
    timeoutMs: options.timeoutMs,
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

  it('signs with sha256=<hex HMAC-SHA256 of the exact body>', () => {
    // Computed independently: printf '{"a":1}' | openssl dgst -sha256 -hmac k
    expect(signBody('{"a":1}', 'k')).toBe(
      'sha256=c3a92ff9e274cdcce27a58c15a78ec6dcbbdbd0038a87e7a11baef2028fd8bff',
    );
    expect(verifySignature('{"a":1}', signBody('{"a":1}', 'k'), 'k')).toBe(true);
    expect(verifySignature('{"a":1} ', signBody('{"a":1}', 'k'), 'k')).toBe(false);
    expect(verifySignature('{"a":1}', signBody('{"a":1}', 'other'), 'k')).toBe(false);
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
