import { afterEach, describe, expect, it } from 'vitest';
import { type GatewayHarness, HELLO, startGatewayHarness } from '../helpers/gateway-harness.js';

let h: GatewayHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

interface BreakerRow {
  model: string;
  state: string;
  openReason: string | null;
  consecutive429: number;
  windowFailures: number;
  routeCoolingUntil: string | null;
}

async function bedrockBreaker(harness: GatewayHarness): Promise<BreakerRow | undefined> {
  const { data } = (await (await fetch(`${harness.url}/v1/breakers?pipeline=p`)).json()) as {
    data: BreakerRow[];
  };
  return data.find((b) => b.model === 'br');
}

describe('Bedrock throttling and "model not ready" through the gateway', () => {
  it('falls back on ModelNotReadyException (HTTP 429) without taking it for a rate limit', async () => {
    h = await startGatewayHarness({ p: { chain: 'br,a' } });
    h.bedrock.script('bedrock-model', [
      { status: 429, errorCode: 'ModelNotReadyException' },
      { status: 429, errorCode: 'ModelNotReadyException' },
    ]);
    for (let i = 0; i < 2; i++) {
      const res = await h.post({ model: 'p', ...HELLO });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-switchyard-route')).toBe('br:429,a:200');
    }
    expect(
      h
        .attempts()
        .filter((a) => a.model === 'br')
        .map((a) => a.outcome),
    ).toEqual(['unavailable', 'unavailable']);
    // Two failures in the window, but no 429 streak and no account-route cooling: the model is
    // warming up, our quota is fine.
    expect(await bedrockBreaker(h)).toMatchObject({
      state: 'closed',
      consecutive429: 0,
      windowFailures: 2,
      routeCoolingUntil: null,
    });
  });

  it('counts a ThrottlingException as a 429 of our account: a streak, and the account route cools', async () => {
    h = await startGatewayHarness({ p: { chain: 'br,a' } });
    h.bedrock.script('bedrock-model', [{ status: 429 }]);
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.headers.get('x-switchyard-route')).toBe('br:429,a:200');
    expect(h.attempts()[0]?.outcome).toBe('rate_limited');
    const breaker = await bedrockBreaker(h);
    expect(breaker).toMatchObject({ consecutive429: 1, windowFailures: 1 });
    expect(breaker?.routeCoolingUntil).not.toBeNull();
    // While it cools, the next request goes straight to the fallback.
    const next = await h.post({ model: 'p', ...HELLO });
    expect(next.headers.get('x-switchyard-route')).toBe('!br:cooling,a:200');
  });

  it('falls back on a ServiceQuotaExceededException (HTTP 400) instead of stopping as a bad request', async () => {
    h = await startGatewayHarness({ p: { chain: 'br,a' } });
    h.bedrock.script('bedrock-model', [{ status: 400, errorCode: 'ServiceQuotaExceededException' }]);
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-route')).toBe('br:400,a:200');
    expect(h.attempts()[0]?.outcome).toBe('rate_limited');
  });
});
