import { describe, expect, it } from 'vitest';
import { createCatalog } from '../../../lambda/core/catalog/catalog.js';
import { retrySchema } from '../../../lambda/core/catalog/retry-config-schema.js';
import { sameRouteRetry } from '../../../lambda/core/router/retry-policy.js';
import { createRouterHarness, tiersOf } from '../../helpers/router-harness.js';
import { OK, RATE_LIMITED, type Step, UNAVAILABLE } from '../../helpers/scripted-model.js';
import { testConfig } from '../../helpers/test-config.js';

const contract = retrySchema.parse('contract');
const NETWORK: Step = { fail: 'network' };
const limitedFor = (retryAfterMs: number): Step => ({ fail: 'rate_limited', status: 429, retryAfterMs });
const TIMEOUT: Step = { fail: 'timeout', takesMs: 10 };

/** A plain request routed with the harness; the clock moves itself along every sleep the loop makes. */
async function routeWithTime(h: ReturnType<typeof createRouterHarness>) {
  const pending = h.route();
  let done = false;
  pending.finally(() => {
    done = true;
  });
  // The loop sleeps on the fake clock: move it 1 ms at a time until the request settles.
  for (let i = 0; i < 20_000 && !done; i++) {
    await new Promise((r) => setImmediate(r));
    if (!done && h.clock.pending() > 0) h.clock.advance(1);
  }
  return pending;
}

describe('retry policy contract', () => {
  it('retries a single 5xx on the same route after a jittered backoff, before any substitute', async () => {
    const h = createRouterHarness({
      models: { A: [UNAVAILABLE, OK], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
      policy: { retry: contract },
    });
    const start = h.clock.now();
    const result = await routeWithTime(h);
    expect(result.route).toBe('A:503,A:200');
    expect(h.calls('B')).toBe(0);
    const second = h.attemptLines()[1];
    expect(second).toMatchObject({ action: 'retry', step: 'retry' });
    // Equal jitter over [100, 200) ms with the default backoffMs 200.
    expect(second?.waitedMs).toBeGreaterThanOrEqual(100);
    expect(second?.waitedMs).toBeLessThan(200);
    expect(h.models.get('A')?.calls.length).toBe(2);
    expect(h.clock.now() - start).toBeGreaterThanOrEqual(second?.waitedMs ?? 0);
  });

  it('retries a network error before headers on the same route', async () => {
    const h = createRouterHarness({
      models: { A: [NETWORK, OK], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
      policy: { retry: contract },
    });
    expect((await routeWithTime(h)).route).toBe('A:network,A:200');
  });

  it('retries a route once only: a second 5xx moves on to the next tier', async () => {
    const h = createRouterHarness({
      models: { A: [UNAVAILABLE], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
      policy: { retry: contract },
    });
    const result = await routeWithTime(h);
    expect(result.route).toBe('A:503,A:503,B:200');
    expect(h.attemptLines().map((l) => l.step ?? 'first')).toEqual(['first', 'retry', 'substitute']);
  });

  it('waits a 429’s Retry-After on the same route when it fits the deadline with the margin', async () => {
    // 2000 ms Retry-After + 2000 ms margin inside a 15 s deadline.
    const h = createRouterHarness({
      models: { A: [limitedFor(2_000), OK], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
      policy: { retry: contract },
    });
    const start = h.clock.now();
    const result = await routeWithTime(h);
    expect(result.route).toBe('A:429,A:200');
    expect(h.attemptLines()[1]).toMatchObject({ action: 'retry', step: 'retry', waitedMs: 2_000 });
    expect(h.clock.now() - start).toBeGreaterThanOrEqual(2_000);
    expect(h.calls('B')).toBe(0);
  });

  it('retries when the wait plus the margin meets the deadline exactly', async () => {
    const h = createRouterHarness({
      models: { A: [limitedFor(3_000), OK], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
      policy: { retry: { ...contract, marginMs: 2_000 }, deadlineMs: 5_000 },
    });
    expect((await routeWithTime(h)).route).toBe('A:429,A:200');
  });

  it('moves on when a 429’s Retry-After does not fit the deadline with the margin', async () => {
    const h = createRouterHarness({
      models: { A: [limitedFor(3_001), OK], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
      policy: { retry: { ...contract, marginMs: 2_000 }, deadlineMs: 5_000 },
    });
    const result = await routeWithTime(h);
    expect(result.route).toBe('A:429,B:200');
    expect(h.attemptLines()[1]?.waitedMs).toBeUndefined();
  });

  it('moves on when Retry-After is longer than maxRetryAfterMs, even inside the deadline', async () => {
    const h = createRouterHarness({
      models: { A: [limitedFor(5_001), OK], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
      policy: { retry: contract, deadlineMs: 60_000 },
    });
    expect((await routeWithTime(h)).route).toBe('A:429,B:200');
  });

  it('tries another route of the same model before substituting when no retry applies', async () => {
    const h = createRouterHarness({
      models: { A: [RATE_LIMITED], 'A~azure': [OK], B: [OK] },
      routes: { A: ['A', 'A~azure'] },
      tiers: tiersOf([['A'], ['B']]),
      policy: { retry: contract },
    });
    const result = await routeWithTime(h);
    expect(result.route).toBe('A:429,A~azure:200');
    expect(h.attemptLines()[1]).toMatchObject({ action: 'fallback', step: 'route' });
  });

  it('substitutes last: same route, then the other route, then the next tier', async () => {
    const h = createRouterHarness({
      models: { A: [UNAVAILABLE], 'A~azure': [TIMEOUT], B: [OK] },
      routes: { A: ['A', 'A~azure'] },
      tiers: tiersOf([['A'], ['B']]),
      policy: { retry: contract, maxAttempts: 4 },
    });
    const result = await routeWithTime(h);
    expect(result.route).toBe('A:503,A:503,A~azure:timeout,B:200');
    expect(h.attemptLines().map((l) => l.step ?? 'first')).toEqual(['first', 'retry', 'route', 'substitute']);
  });

  it('never retries a route whose breaker the failure opened', async () => {
    const h = createRouterHarness({
      models: { A: [limitedFor(1_000)], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
      policy: { retry: contract },
      breaker: { consecutive429: 1 },
    });
    expect((await routeWithTime(h)).route).toBe('A:429,B:200');
  });

  it('keeps drain, the default, moving straight to the next tier after a single 5xx', async () => {
    const h = createRouterHarness({
      models: { A: [UNAVAILABLE, OK], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
    });
    expect((await h.route()).route).toBe('A:503,B:200');
  });

  it('ends a retry’s wait as cancelled when the caller goes away', async () => {
    const h = createRouterHarness({
      models: { A: [limitedFor(2_000), OK], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
      policy: { retry: contract },
    });
    const caller = new AbortController();
    const pending = h.route({ signal: caller.signal });
    for (let i = 0; i < 50 && h.clock.pending() === 0; i++) await new Promise((r) => setImmediate(r));
    caller.abort();
    await pending;
    expect(h.requestLines()[0]).toMatchObject({ reason: 'cancelled', route: 'A:429' });
    expect(h.calls('A')).toBe(1);
  });
});

describe('sameRouteRetry', () => {
  const timing = { nowMs: 0, deadlineMs: 15_000 };
  it.each([
    ['timeout', 1_000],
    ['malformed_response', 1_000],
    ['upstream_auth', 1_000],
    ['rate_limited', undefined],
  ] as const)('does not retry %s (Retry-After %s)', (failureClass, retryAfterMs) => {
    expect(sameRouteRetry(contract, { failureClass, retryAfterMs }, false, timing, () => 0)).toBeUndefined();
  });

  it('draws the backoff evenly from [backoffMs / 2, backoffMs)', () => {
    const error = { failureClass: 'unavailable' as const };
    expect(sameRouteRetry(contract, error, false, timing, () => 0)).toEqual({ waitMs: 100 });
    expect(sameRouteRetry(contract, error, false, timing, () => 0.999)).toEqual({ waitMs: 199 });
  });

  it('waits exactly maxRetryAfterMs, not a millisecond more', () => {
    const at = (retryAfterMs: number) =>
      sameRouteRetry(contract, { failureClass: 'rate_limited', retryAfterMs }, false, timing, () => 0);
    expect(at(5_000)).toEqual({ waitMs: 5_000 });
    expect(at(5_001)).toBeUndefined();
  });

  it('never retries twice, nor under drain', () => {
    const error = { failureClass: 'unavailable' as const };
    expect(sameRouteRetry(contract, error, true, timing, () => 0)).toBeUndefined();
    expect(sameRouteRetry(retrySchema.parse('drain'), error, false, timing, () => 0)).toBeUndefined();
  });
});

describe('retry config', () => {
  it('reads a bare name as the object form with every default', () => {
    expect(retrySchema.parse('contract')).toEqual({
      policy: 'contract',
      backoffMs: 200,
      maxRetryAfterMs: 5_000,
      marginMs: 2_000,
    });
  });

  it('names the bad field', () => {
    const result = retrySchema.safeParse({ policy: 'contract', marginMs: -1 });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['marginMs']);
    expect(retrySchema.safeParse('eager').error?.issues[0]?.path).toEqual(['policy']);
  });
});

describe('retry policy in the catalog', () => {
  it('gives a pipeline its own retry policy and every other one the router’s', () => {
    const catalog = createCatalog(
      testConfig({ pipelines: { p: { chain: 'a', retry: 'contract' }, q: { chain: 'a' } } }),
    );
    expect(catalog.policy('p').route.retry?.policy).toBe('contract');
    expect(catalog.policy('q').route.retry?.policy).toBe('drain');
  });
});
