import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptLedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { type GatewayHarness, HELLO, startGatewayHarness } from '../helpers/gateway-harness.js';

let h: GatewayHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const PIPELINES = Array.from({ length: 20 }, (_, i) => `cron-${String(i + 1).padStart(2, '0')}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('account-route cooling over HTTP', () => {
  it('20 pipelines burst into a 429 with Retry-After: 2 — the route rests 2 s, the other route serves, then it is used again', async () => {
    h = await startGatewayHarness(Object.fromEntries(PIPELINES.map((p) => [p, { chain: 'a,b' }])));
    const harness = h;
    harness.openai.setDefault('model-a', { status: 429, retryAfter: 2 });
    const burst = async () => {
      const answers = await Promise.all(PIPELINES.map((model) => harness.post({ model, ...HELLO })));
      expect(answers.map((r) => r.status)).toEqual(PIPELINES.map(() => 200));
      return answers.map((r) => r.headers.get('x-switchyard-route') ?? '');
    };
    const firstBurstAt = Date.now();
    const first = await burst();
    const afterFirst = harness.received('model-a');
    // Only requests already on their way before the first 429 came back reach route a.
    expect(afterFirst).toBeGreaterThanOrEqual(1);
    expect(afterFirst).toBeLessThanOrEqual(5);
    expect(first.filter((r) => r === '!a:cooling,b:200').length).toBe(20 - afterFirst);
    // Two more bursts inside the 2 s: route a gets nothing, route b serves every request.
    await sleep(300);
    const second = await burst();
    await sleep(300);
    await burst();
    expect(Date.now() - firstBurstAt).toBeLessThan(2_000);
    expect(harness.received('model-a')).toBe(afterFirst);
    // A pipeline that got the 429 itself has its own breaker cooling (Retry-After) and skips a as
    // before; every other one skips it for the account route's cooling, and says so.
    expect(second).toEqual(first.map((r) => (r === 'a:429,b:200' ? 'b:200' : '!a:cooling,b:200')));

    // The skip names who cooled the route, in the ledger only (a caller never learns another pipeline's name).
    const skips = harness
      .attempts()
      .flatMap((a) => (a as AttemptLedgerEntry).skipped ?? [])
      .filter((s) => s.route === 'a')
      .flatMap((s) => (s.reason === 'route_cooling' ? [s] : []));
    expect(skips.length).toBe(3 * (20 - afterFirst));
    expect(new Set(skips.map((s) => s.cooledBy)).size).toBeGreaterThanOrEqual(1);
    expect(PIPELINES).toContain(skips[0]?.cooledBy);

    // After the 2 s the quota is back and route a serves again, first attempt, for every pipeline.
    harness.openai.setDefault('model-a', {});
    const { data } = await (await fetch(`${harness.url}/v1/breakers?pipeline=cron-07`)).json();
    const until = Date.parse(data.find((b: { model: string }) => b.model === 'a').routeCoolingUntil);
    // Retry-After: 2 from the last 429 of the first burst, which came back within its first few hundred ms.
    expect(until - firstBurstAt).toBeGreaterThanOrEqual(2_000);
    expect(until - firstBurstAt).toBeLessThan(2_500);
    await sleep(Math.max(0, until + 20 - Date.now()));
    const later = await harness.post({ model: 'cron-07', ...HELLO });
    expect(later.headers.get('x-switchyard-route')).toBe('a:200');
    expect(harness.received('model-a')).toBe(afterFirst + 1);
  });

  it('shows the account route cooling in GET /v1/breakers, for every pipeline that uses it', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b' }, q: { chain: 'b,a' } });
    h.openai.script('model-a', [{ status: 429, retryAfter: 30 }]);
    await h.post({ model: 'p', ...HELLO });
    const { data } = await (await fetch(`${h.url}/v1/breakers`)).json();
    const a = data.filter((b: { model: string }) => b.model === 'a');
    expect(a).toHaveLength(2);
    for (const row of a) {
      expect(row).toMatchObject({ state: 'closed', routeCooledBy: 'p' });
      expect(Date.parse(row.routeCoolingUntil) - Date.now()).toBeGreaterThan(25_000);
    }
  });
});
