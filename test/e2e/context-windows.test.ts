import { afterEach, describe, expect, it } from 'vitest';
import type { RequestLedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { type GatewayHarness, HELLO, startGatewayHarness } from '../helpers/gateway-harness.js';

let h: GatewayHarness;
afterEach(async () => {
  await h?.close();
});

/** Models `a` and `b` declare 1,000 tokens, `c` 100,000. */
const windows = (c: { models: Record<string, object> }) => {
  Object.assign(c.models.a as object, { contextWindow: 1_000 });
  Object.assign(c.models.b as object, { contextWindow: 1_000 });
  Object.assign(c.models.c as object, { contextWindow: 100_000 });
};

const TOO_LONG = { status: 400, errorCode: 'context_length_exceeded' };

describe('context windows over HTTP', () => {
  it('after context_length_exceeded skips a model of the same window and a larger one answers', async () => {
    h = await startGatewayHarness(
      { p: { chain: 'a,b,c', fallbackOnContextLength: true } },
      { configure: windows },
    );
    h.openai.script('model-a', [TOO_LONG]);
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-model')).toBe('c');
    expect(res.headers.get('x-switchyard-route')).toBe('a:400,!b:context,c:200');
    expect(h.received('model-b')).toBe(0);
  });

  it('passes over models too small for the request before calling them', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,c' } }, { configure: windows });
    // About 1,250 tokens of prompt at 4 characters a token: more than a's 1,000.
    const res = await h.post({ model: 'p', messages: [{ role: 'user', content: 'x'.repeat(5_000) }] });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-route')).toBe('!a:context,c:200');
    expect(h.received('model-a')).toBe(0);
  });

  it('answers 400 naming the windows when the request is larger than every model of the chain', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b' } }, { configure: windows });
    const res = await h.post({ model: 'p', messages: [{ role: 'user', content: 'x'.repeat(5_000) }] });
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toContain('larger than the context window of every model');
    expect(h.received('model-a') + h.received('model-b')).toBe(0);
    expect(h.requests().at(-1) as RequestLedgerEntry).toMatchObject({
      reason: 'stopped',
      failureClass: 'context_length',
    });
  });
});
