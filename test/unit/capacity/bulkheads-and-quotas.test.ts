import { describe, expect, it } from 'vitest';
import { createRouteCapacity } from '../../../lambda/core/capacity/create-route-capacity.js';
import { createMemoryInFlight, withLocalFallback } from '../../../lambda/core/capacity/in-flight.js';
import { capacitySchema } from '../../../lambda/core/catalog/capacity-config-schema.js';
import { terminalError } from '../../../lambda/core/router/terminal-error.js';
import { createMemoryAdmissionStore } from '../../../lambda/stores/memory-admission-store.js';
import type { FakeClock } from '../../helpers/fake-clock.js';
import { createRouterHarness, tiersOf } from '../../helpers/router-harness.js';
import { OK, type Step } from '../../helpers/scripted-model.js';

/** `A` on provider `pa` (upstream `model-a`), `B` on `pb` (`model-b`). */
const TARGETS: Record<string, { provider: string; model: string }> = {
  A: { provider: 'pa', model: 'model-a' },
  B: { provider: 'pb', model: 'model-b' },
};

function harness(capacity: Record<string, unknown>, steps: Record<string, Step[]> = { A: [OK], B: [OK] }) {
  let clockRef: FakeClock | undefined;
  const clock = { now: () => clockRef?.now() ?? 0 };
  const settings = capacitySchema.parse(capacity);
  const route = createRouteCapacity({
    settings,
    clock,
    inFlight: createMemoryInFlight(settings.leaseMs),
    quotaStore: createMemoryAdmissionStore(clock),
    routeOf: (key) => TARGETS[key],
  });
  const h = createRouterHarness({ models: steps, tiers: tiersOf([['A'], ['B']]), capacity: route });
  clockRef = h.clock;
  return h;
}

/** Lets started requests reach their upstream call. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Moves the fake clock `ms` on and lets paced answers finish (their last sleep is 0 ms). */
async function elapse(h: { clock: FakeClock }, ms: number) {
  h.clock.advance(ms);
  await settle();
  h.clock.advance(0);
}

/** A step that answers after `ms` on the fake clock. */
const slow = (ms: number): Step => ({ paced: { firstByteAtMs: ms, doneAtMs: ms } });

describe('bulkheads', () => {
  it('a full route is skipped at once and labelled; the next tier answers', async () => {
    const h = harness({ routes: { A: { maxInFlight: 1 } } }, { A: [slow(1_000)], B: [OK] });
    const first = h.route();
    await settle();
    const second = await h.route();
    expect(second.ok && second.model).toBe('B');
    expect(second.route).toBe('!A:full,B:200');
    expect(h.attemptLines().find((l) => l.model === 'B')?.skipped).toEqual([
      { route: 'A', reason: 'full', until: new Date(h.clock.now() + 1_000).toISOString() },
    ]);
    await elapse(h, 1_000);
    expect((await first).ok).toBe(true);
  });

  it('gives the slot back when the attempt ends, failed or answered', async () => {
    const h = harness(
      { routes: { A: { maxInFlight: 1 } } },
      { A: [{ fail: 'unavailable', status: 503 }, OK], B: [OK] },
    );
    const failed = await h.route();
    expect(failed.route).toBe('A:503,B:200');
    const answered = await h.route();
    expect(answered.route).toBe('A:200');
    expect((await h.route()).route).toBe('A:200');
  });

  it('a provider bulkhead counts every route on the provider; never more in flight than maxInFlight', async () => {
    const h = harness({ providers: { pa: { maxInFlight: 2 } } }, { A: [slow(500)], B: [slow(500)] });
    const all = Array.from({ length: 10 }, () => h.route());
    await settle();
    expect(h.calls('A')).toBe(2);
    expect(h.calls('B')).toBe(8);
    await elapse(h, 500);
    const results = await Promise.all(all);
    expect(results.every((r) => r.ok)).toBe(true);
  });

  it('every route full: 503 capacity_exhausted with Retry-After, no attempt, and no fail-open', async () => {
    const h = harness(
      { routes: { A: { maxInFlight: 1 }, B: { maxInFlight: 1 } } },
      { A: [slow(1_000)], B: [slow(1_000)] },
    );
    const busyA = h.route();
    await settle();
    const busyB = h.route();
    await settle();
    const refused = await h.route();
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.attempts).toEqual([]);
    expect(refused.route).toBe('!A:full,!B:full');
    expect(terminalError(refused, 'p')).toMatchObject({
      status: 503,
      code: 'capacity_exhausted',
      retryAfterSeconds: 1,
    });
    expect(h.requestLines().at(-1)).toMatchObject({ reason: 'exhausted', route: '!A:full,!B:full' });
    await elapse(h, 1_000);
    await Promise.all([busyA, busyB]);
  });
});

describe('declared quotas', () => {
  it('a route whose requestsPerMinute is spent is skipped and labelled; at requestsPerMinute exactly it still answers', async () => {
    const h = harness({ quotas: { pa: { 'model-a': { requestsPerMinute: 2 } } } });
    expect((await h.route()).route).toBe('A:200');
    expect((await h.route()).route).toBe('A:200');
    const third = await h.route();
    expect(third.route).toBe('!A:quota,B:200');
  });

  it('all routes out of quota: 429 route_quota_exhausted with the Retry-After of the soonest reset', async () => {
    const h = harness({
      quotas: { pa: { 'model-a': { requestsPerMinute: 1 } }, pb: { 'model-b': { requestsPerMinute: 1 } } },
    });
    await h.route();
    h.clock.advance(20_000);
    await h.route();
    const refused = await h.route();
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.route).toBe('!A:quota,!B:quota');
    // A's request leaves the window 42 s from now: its 2 s slice and the thirty after it (62 s).
    expect(terminalError(refused, 'p')).toMatchObject({
      status: 429,
      code: 'route_quota_exhausted',
      retryAfterSeconds: 42,
    });
  });

  it('tokensPerMinute reserves the estimate of each attempt (input at 4 characters a token + max_tokens)', async () => {
    const h = harness({ quotas: { pa: { 'model-a': { tokensPerMinute: 250 } } } });
    // [{"role":"user","content":"hi"}] is 31 characters: 8 tokens + 100 = 108 per attempt.
    expect((await h.route({ maxTokens: 100 })).route).toBe('A:200');
    expect((await h.route({ maxTokens: 100 })).route).toBe('A:200');
    expect((await h.route({ maxTokens: 100 })).route).toBe('!A:quota,B:200');
  });
});

describe('a shared in-flight counter whose store fails', () => {
  it('counts in the process instead, and reports each store error', async () => {
    const errors: unknown[] = [];
    const broken = {
      take: async () => {
        throw new Error('store timed out');
      },
    };
    const counter = withLocalFallback(broken, createMemoryInFlight(60_000), (e) => errors.push(e));
    expect(await counter.take('route:a', 2, 0)).toBeDefined();
    expect(await counter.take('route:a', 2, 0)).toBeDefined();
    expect(await counter.take('route:a', 2, 0)).toBeUndefined();
    expect(errors).toHaveLength(3);
  });
});

describe('a quota whose store fails', () => {
  it('lets the attempt go but keeps its in-flight slot until the attempt ends', async () => {
    const errors: unknown[] = [];
    const failing = {
      read: async () => {
        throw new Error('store down');
      },
      take: async () => undefined,
      add: async () => {},
    };
    const capacity = createRouteCapacity({
      settings: capacitySchema.parse({
        routes: { A: { maxInFlight: 1 } },
        quotas: { pa: { 'model-a': { requestsPerMinute: 5 } } },
      }),
      clock: { now: () => 0 },
      inFlight: createMemoryInFlight(60_000),
      quotaStore: failing,
      routeOf: (key) => TARGETS[key],
      onStoreError: (e) => errors.push(e),
    });
    const first = await capacity.acquire('A', 0);
    expect(first.ok).toBe(true);
    expect(await capacity.acquire('A', 0)).toMatchObject({ ok: false, reason: 'full' });
    if (first.ok) first.lease.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect((await capacity.acquire('A', 0)).ok).toBe(true);
    expect(errors).toHaveLength(2);
  });
});
