import { afterEach, describe, expect, it } from 'vitest';
import { type GatewayHarness, HELLO, startGatewayHarness } from '../helpers/gateway-harness.js';

let h: GatewayHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('capacity over HTTP: bulkheads and declared quotas', () => {
  it('every route full: 503 capacity_exhausted with Retry-After 1 and the skipped routes in the trail, no upstream call', async () => {
    h = await startGatewayHarness(
      { p: { chain: 'a,b' } },
      {
        configure: (config) =>
          Object.assign(config, { capacity: { routes: { a: { maxInFlight: 1 }, b: { maxInFlight: 1 } } } }),
      },
    );
    h.openai.setDefault('*', { latencyMs: 600 });
    const busy = [h.post({ model: 'p', ...HELLO }), h.post({ model: 'p', ...HELLO })];
    await new Promise((resolve) => setTimeout(resolve, 200));
    const refused = await h.post({ model: 'p', ...HELLO });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('x-should-retry')).toBeNull();
    expect(refused.headers.get('x-switchyard-route')).toBe('!a:full,!b:full');
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('capacity_exhausted');
    const answered = await Promise.all(busy);
    expect(answered.map((r) => r.status)).toEqual([200, 200]);
    expect(h.openai.requests).toHaveLength(2);
  });

  it('a used-up declared quota: the route is skipped as !a:quota; all used up: 429 route_quota_exhausted', async () => {
    h = await startGatewayHarness(
      { p: { chain: 'a,b' } },
      {
        configure: (config) =>
          Object.assign(config, {
            capacity: {
              quotas: { fake: { 'model-a': { requestsPerMinute: 1 }, 'model-b': { requestsPerMinute: 1 } } },
            },
          }),
      },
    );
    expect((await h.post({ model: 'p', ...HELLO })).headers.get('x-switchyard-route')).toBe('a:200');
    expect((await h.post({ model: 'p', ...HELLO })).headers.get('x-switchyard-route')).toBe('!a:quota,b:200');
    const refused = await h.post({ model: 'p', ...HELLO });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('route_quota_exhausted');
    expect(h.openai.requests).toHaveLength(2);
  });
});
