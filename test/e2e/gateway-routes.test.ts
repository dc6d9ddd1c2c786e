import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptLedgerEntry, RequestLedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { type GatewayHarness, HELLO, PRICE, startGatewayHarness } from '../helpers/gateway-harness.js';

let h: GatewayHarness;
afterEach(async () => {
  await h?.close();
});

const AZURE_PRICE = { inputPerMTok: 1, outputPerMTok: 4 };

/** Model `a` gets a second route: provider `azure` (another account on the fake), raw id `model-a-azure`. */
const withAzureRoute = (config: Record<string, unknown> & { models: Record<string, object> }) => {
  config.providers = {
    ...(config.providers as object),
    azure: {
      type: 'openai',
      baseURL: (config.providers as { fake: { baseURL: string } }).fake.baseURL,
      apiKeyEnv: 'FAKE_KEY',
    },
  };
  config.models.a = {
    ...config.models.a,
    routes: [{ provider: 'azure', model: 'model-a-azure', price: AZURE_PRICE }],
  };
};

const attemptLines = () => h.attempts() as AttemptLedgerEntry[];
const lastRequest = () => h.requests().at(-1) as RequestLedgerEntry;

describe('routes of one model over HTTP', () => {
  it('falls back to the same model’s other route before substituting, labelled in headers and ledger', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b' } }, { configure: withAzureRoute });
    h.openai.script('model-a', [{ status: 503 }]);
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-route')).toBe('a:503,a~azure:200');
    expect(res.headers.get('x-switchyard-steps')).toBe('first,route');
    expect(res.headers.get('x-switchyard-model')).toBe('a');
    expect((await res.json()).model).toBe('a');
    expect(h.received('model-a-azure')).toBe(1);
    expect(h.received('model-b')).toBe(0);
    const [first, second] = attemptLines();
    expect(first).toMatchObject({ model: 'a', provider: 'fake', action: 'first', outcome: 'unavailable' });
    expect(first?.step).toBeUndefined();
    expect(second).toMatchObject({
      model: 'a',
      provider: 'azure',
      action: 'fallback',
      step: 'route',
      outcome: 'ok',
    });
    // The route's own price: the azure account costs less than the model's default.
    const usage = second?.usage ?? { inputTokens: 0, outputTokens: 0 };
    const expected =
      (usage.inputTokens * AZURE_PRICE.inputPerMTok + usage.outputTokens * AZURE_PRICE.outputPerMTok) / 1e6;
    expect(second?.costUsd).toBeCloseTo(expected, 12);
    expect(usage.outputTokens * PRICE.outputPerMTok).toBeGreaterThan(
      usage.outputTokens * AZURE_PRICE.outputPerMTok,
    );
    expect(lastRequest()).toMatchObject({ reason: 'success', model: 'a', route: 'a:503,a~azure:200' });
  });

  it('substitutes the next tier only after every route of the model failed', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b' } }, { configure: withAzureRoute });
    h.openai.script('model-a', [{ status: 429 }]);
    h.openai.script('model-a-azure', [{ status: 503 }]);
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-route')).toBe('a:429,a~azure:503,b:200');
    expect(res.headers.get('x-switchyard-steps')).toBe('first,route,substitute');
    expect(res.headers.get('x-switchyard-model')).toBe('b');
    expect(attemptLines().map((l) => l.step)).toEqual([undefined, 'route', 'substitute']);
  });

  it('falls back between routes before the commit of a stream', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b' } }, { configure: withAzureRoute });
    h.openai.script('model-a', [{ status: 500 }]);
    const res = await h.post({ model: 'p', stream: true, ...HELLO });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-route')).toBe('a:500,a~azure:200');
    expect(await res.text()).toContain('[DONE]');
    expect(lastRequest()).toMatchObject({ reason: 'success', model: 'a', stream: true });
  });

  it('keeps a breaker per route: with route a open, the next request starts on a’s other route', async () => {
    h = await startGatewayHarness(
      { p: { chain: 'a,b', maxAttempts: 1 } },
      // Cooling shorter than the gap between requests: the breaker's own rule opens route a.
      { configure: (config) => withAzureRoute(Object.assign(config, { rateLimit: { coolMs: 1 } })) },
    );
    h.openai.setDefault('model-a', { status: 429 });
    await h.post({ model: 'p', ...HELLO });
    await h.post({ model: 'p', ...HELLO }); // a's second 429 in a row opens route a
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-route')).toBe('a~azure:200');
    const breakers = (await (await fetch(`${h.url}/v1/breakers`)).json()).data;
    expect(breakers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ model: 'a', route: 'fake', state: 'open' }),
        expect.objectContaining({ model: 'a', route: 'azure', state: 'closed' }),
        expect.objectContaining({ model: 'b', route: null }),
      ]),
    );
  });
});

describe('substitution limits over HTTP', () => {
  it('forbid: only the first tier’s routes may answer; the error names the limit', async () => {
    h = await startGatewayHarness(
      { p: { chain: 'a,b', substitution: 'forbid' } },
      { configure: withAzureRoute },
    );
    h.openai.setDefault('model-a', { status: 503 });
    h.openai.setDefault('model-a-azure', { status: 503 });
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.status).toBe(503);
    const body = await res.json();
    expect(body.error).toMatchObject({ type: 'api_error', code: 'substitution_forbidden' });
    expect(body.error.message).toContain('substitution: forbid');
    expect(h.received('model-b')).toBe(0);
    // a, a~azure, then a again: a route already tried in this request is a retry.
    expect(res.headers.get('x-switchyard-steps')).toBe('first,route,retry');
    expect(lastRequest()).toMatchObject({ reason: 'exhausted', limit: 'substitution' });
  });

  it('forbid: when every route of tier 1 is open, fail-open stays in tier 1', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b', substitution: 'forbid', maxAttempts: 1 } });
    h.openai.setDefault('model-a', { status: 429 });
    await h.post({ model: 'p', ...HELLO });
    await h.post({ model: 'p', ...HELLO }); // opens a
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).not.toBeNull();
    expect((await res.json()).error.code).toBe('substitution_forbidden');
    expect(attemptLines().at(-1)).toMatchObject({ model: 'a', action: 'fail-open' });
    expect(h.received('model-b')).toBe(0);
  });

  it('maxTier: tier N answers when N is exactly the limit', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b,c', maxTier: 2 } });
    h.openai.setDefault('model-a', { status: 503 });
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-model')).toBe('b');
    expect(res.headers.get('x-switchyard-steps')).toBe('first,substitute');
  });

  it('maxTier: never degrades past tier N, and the error names maxTier', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b,c', maxTier: 2, maxAttempts: 3 } });
    h.openai.setDefault('model-a', { status: 503 });
    h.openai.setDefault('model-b', { status: 502 });
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.status).toBe(503);
    const body = await res.json();
    expect(body.error).toMatchObject({ type: 'api_error', code: 'max_tier_reached' });
    expect(body.error.message).toContain('past tier 2 (maxTier: 2)');
    expect(h.received('model-c')).toBe(0);
    expect(attemptLines().every((l) => l.tier <= 2)).toBe(true);
    expect(lastRequest()).toMatchObject({ reason: 'exhausted', limit: 'maxTier' });
    const pipelines = (await (await fetch(`${h.url}/v1/pipelines`)).json()).data;
    expect(pipelines[0].policy).toMatchObject({ substitution: 'allow', maxTier: 2 });
  });
});
