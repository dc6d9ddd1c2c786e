import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptLedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { type GatewayHarness, HELLO, startGatewayHarness } from '../helpers/gateway-harness.js';

let h: GatewayHarness;
afterEach(async () => {
  await h?.close();
});

describe('retry policy contract over HTTP', () => {
  it('waits out a 429’s Retry-After on the same route instead of substituting', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b', retry: 'contract' } });
    h.openai.script('model-a', [{ status: 429, retryAfter: 1 }]);
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-route')).toBe('a:429,a:200');
    expect(res.headers.get('x-switchyard-steps')).toBe('first,retry');
    expect(h.received('model-b')).toBe(0);
    expect((h.attempts() as AttemptLedgerEntry[])[1]).toMatchObject({ action: 'retry', waitedMs: 1_000 });
  });

  it('substitutes at once when the Retry-After does not fit the deadline with the margin', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b', retry: 'contract', deadlineMs: 3_000 } });
    h.openai.script('model-a', [{ status: 429, retryAfter: 2 }]);
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.headers.get('x-switchyard-route')).toBe('a:429,b:200');
    expect(h.received('model-a')).toBe(1);
  });

  it('retries a single 503 on the same route after a short backoff', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b', retry: 'contract' } });
    h.openai.script('model-a', [{ status: 503 }]);
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.headers.get('x-switchyard-route')).toBe('a:503,a:200');
    expect(h.received('model-b')).toBe(0);
  });
});
