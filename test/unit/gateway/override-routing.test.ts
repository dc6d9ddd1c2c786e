import { describe, expect, it } from 'vitest';
import { routeAccess } from '../../../lambda/core/breaker/recovery.js';
import type { Catalog } from '../../../lambda/core/catalog/catalog.js';
import { pinnedView, routerFor, splitCanary } from '../../../lambda/core/gateway/override-routing.js';
import type { Target } from '../../../lambda/core/gateway/target.js';
import { routeGenerate } from '../../../lambda/core/router/route-chat.js';
import { createRouterHarness, tiersOf } from '../../helpers/router-harness.js';
import { OK, RATE_LIMITED } from '../../helpers/scripted-model.js';

const policy = { route: {}, breaker: {} } as unknown as ReturnType<Catalog['policy']>;

function target(extra: Partial<Target> = {}): Target {
  return {
    kind: 'pipeline',
    pipeline: 'p',
    source: 'ssm',
    chain: 'A,B',
    tiers: tiersOf([['A'], ['B']]),
    warnings: [],
    policy,
    ...extra,
  };
}

const canary = {
  chain: 'C',
  tiers: tiersOf([['C']]),
  warnings: [],
  percent: 10,
  since: '2026-12-01T06:00:00Z',
  autoAbort: false,
};

describe('the canary split', () => {
  it('sends a draw just below the share to the canary chain', () => {
    const drawn = splitCanary(target({ canary }), 0.0999);
    expect(drawn).toMatchObject({ variant: 'canary', chain: 'C' });
    expect(drawn.tiers).toBe(canary.tiers);
  });

  it('keeps a draw exactly at the share on the stable chain', () => {
    expect(splitCanary(target({ canary }), 0.1)).toMatchObject({ variant: 'stable', chain: 'A,B' });
  });

  it('leaves a target without a canary as it is, with no variant', () => {
    const plain = target();
    expect(splitCanary(plain, 0)).toBe(plain);
  });

  it('labels every ledger line of the request with its variant', async () => {
    const h = createRouterHarness({
      models: { A: [RATE_LIMITED, OK], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
    });
    const deps = routerFor(h.deps, splitCanary(target({ canary }), 0.5));
    await routeGenerate(
      { requestId: 'r1', pipeline: 'p', tiers: tiersOf([['A'], ['B']]), policy: basePolicy, stream: false },
      deps,
      { messages: [{ role: 'user', content: 'hi' }] },
    );
    expect(h.ledger.length).toBe(3);
    expect(h.ledger.every((e) => e.variant === 'stable')).toBe(true);
  });
});

const basePolicy = {
  maxAttempts: 3,
  deadlineMs: 15_000,
  fallbackOnContextLength: false,
  substitution: 'allow' as const,
};

describe('a pin', () => {
  /** Two 429s open A's breaker; then A answers again. */
  const opened = async () => {
    const h = createRouterHarness({
      models: { A: [RATE_LIMITED, RATE_LIMITED, OK], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
    });
    await h.route();
    await h.route();
    expect(h.opened).toHaveLength(1);
    return h;
  };
  const request = (h: Awaited<ReturnType<typeof opened>>, pinned: boolean) =>
    routeGenerate(
      { requestId: 'r3', pipeline: 'p', tiers: tiersOf([['A'], ['B']]), policy: basePolicy, stream: false },
      routerFor(h.deps, target({ pinned, until: h.clock.now() + 60_000 })),
      { messages: [{ role: 'user', content: 'hi' }] },
    );

  it('without it, the request after an opening skips the open route', async () => {
    const h = await opened();
    const result = await request(h, false);
    expect(result.ok && result.model).toBe('B');
  });

  it('keeps sending to its route although the breaker is open, as a first attempt, not fail-open', async () => {
    const h = await opened();
    const result = await request(h, true);
    expect(result.ok && result.model).toBe('A');
    expect(h.attemptLines().at(-1)).toMatchObject({ model: 'A', action: 'first', outcome: 'ok' });
  });

  it('still records the pinned route’s attempts and failures, and the opening stays in the store', async () => {
    const h = await opened();
    await request(h, true);
    const snapshot = (await h.breakers.read('p')).get('A');
    expect(snapshot?.openUntil).toBeGreaterThan(h.clock.now());
    // Two 429s before the pin and the pinned success: every one recorded.
    expect(
      h
        .attemptLines()
        .filter((l) => l.model === 'A')
        .map((l) => l.outcome),
    ).toEqual(['rate_limited', 'rate_limited', 'ok']);
  });
});

describe('a pinned route under a recovering breaker', () => {
  const NOW = 1_700_000_000_000;
  const base = { consecutive429: 0, buckets: {} };

  it('is closed to selection while its breaker waits for a probe, probes, or ramps', () => {
    const probing = { ...base, probing: true, openUntil: NOW - 1, probeStreak: 1 };
    const ramping = { ...base, rampStart: NOW - 1_000, rampStepMs: 60_000, rampSteps: [10, 25, 50, 100] };
    const open = { ...base, openUntil: NOW + 60_000 };
    expect(routeAccess(probing, NOW).kind).toBe('probe');
    expect(routeAccess(ramping, NOW)).toEqual({ kind: 'ramp', share: 10 });
    for (const snapshot of [probing, ramping, open])
      expect(routeAccess(pinnedView(snapshot), NOW)).toEqual({ kind: 'closed' });
  });

  it('keeps what the store holds: the view is a copy, and a closed breaker is returned as it is', () => {
    const ramping = { ...base, rampStart: NOW, rampStepMs: 60_000, rampSteps: [10, 100] };
    expect(pinnedView(ramping)).not.toBe(ramping);
    expect(ramping.rampStart).toBe(NOW);
    const closed = { ...base };
    expect(pinnedView(closed)).toBe(closed);
  });
});
