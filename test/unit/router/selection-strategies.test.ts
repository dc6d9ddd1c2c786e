import { describe, expect, it } from 'vitest';
import { adaptiveCost, adaptiveStrategy } from '../../../lambda/core/router/adaptive-strategy.js';
import { blendedPrice, costStrategy } from '../../../lambda/core/router/cost-strategy.js';
import { createRouteSignals, type RouteSignal } from '../../../lambda/core/router/route-signals.js';
import { selectModel } from '../../../lambda/core/router/select-model.js';
import type { SelectionContext, TierCandidate } from '../../../lambda/core/router/selection-strategy.js';
import { weightedStrategy } from '../../../lambda/core/router/weighted-strategy.js';
import { seededRandom } from '../../../lambda/wiring/seeded-random.js';
import { createFakeClock } from '../../helpers/fake-clock.js';
import { tiersOf } from '../../helpers/router-harness.js';

const member = (key: string, weight = 1, routes = [key]): TierCandidate => ({ key, weight, routes });
const known = (latencyMs: number, extra: Partial<RouteSignal> = {}): RouteSignal => ({
  latencyMs,
  freshness: 1,
  successRate: 1,
  inFlight: 0,
  ...extra,
});
const unknown: RouteSignal = { latencyMs: undefined, freshness: 0, successRate: 1, inFlight: 0 };

function contextOf(
  signals: Record<string, RouteSignal>,
  random: () => number,
  prices: Record<string, number | undefined> = {},
): SelectionContext {
  return {
    now: 0,
    random,
    signal: (route) => signals[route] ?? unknown,
    price: (route) => {
      const p = prices[route];
      return p === undefined ? undefined : { inputPerMTok: p, outputPerMTok: 0 };
    },
  };
}

/** How often each route wins over `n` seeded choices. */
function shares(choose: () => string | undefined, n = 2_000): Record<string, number> {
  const counts: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    const route = choose() ?? 'none';
    counts[route] = (counts[route] ?? 0) + 1 / n;
  }
  return counts;
}

describe('adaptive strategy (power of two choices, peak-EWMA)', () => {
  it('picks the faster of the two drawn routes and records both scores', () => {
    const choice = adaptiveStrategy.choose(
      [member('A'), member('B')],
      contextOf({ A: known(8_000), B: known(800) }, () => 0),
    );
    expect(choice).toEqual({
      model: 'B',
      route: 'B',
      decision: { strategy: 'adaptive', score: 800, rival: { route: 'A', score: 8_000 } },
    });
  });

  it('weighs in-flight load and success rate: cost = latency × (inFlight + 1) / (success × weight)', () => {
    expect(adaptiveCost(known(800, { inFlight: 3, successRate: 0.5 }), 2, 800)).toBe(3_200);
    const choice = adaptiveStrategy.choose(
      [member('A'), member('B')],
      contextOf({ A: known(1_000), B: known(400, { inFlight: 2 }) }, () => 0),
    );
    expect(choice?.route).toBe('A'); // 1000 × 1 beats 400 × 3
  });

  it('uses the chain weight as the prior: a weight of 3 makes a route three times cheaper', () => {
    const choice = adaptiveStrategy.choose(
      [member('A', 3), member('B', 1)],
      contextOf({ A: known(2_400), B: known(900) }, () => 0),
    );
    expect(choice?.route).toBe('A'); // 800 beats 900
  });

  it('gives a tie to the higher weight, and with equal weights to the first route drawn', () => {
    // A: 600 / 1 = 600; B: 1200 / 2 = 600. A is drawn first, B wins on weight.
    const sameCost = contextOf({ A: known(600), B: known(1_200) }, () => 0);
    expect(adaptiveStrategy.choose([member('A', 1), member('B', 2)], sameCost)).toMatchObject({
      route: 'B',
      decision: { score: 600, rival: { route: 'A', score: 600 } },
    });
    // Drawn the other way round, the higher weight still wins: A first would keep it on a tie.
    expect(adaptiveStrategy.choose([member('B', 2), member('A', 1)], sameCost)?.route).toBe('B');
    const draws = [0.99, 0]; // first draw B (index 1), second draw A
    const tie = contextOf({ A: known(500), B: known(500) }, () => draws.shift() ?? 0);
    expect(adaptiveStrategy.choose([member('A'), member('B')], tie)?.route).toBe('B');
  });

  it('reads a route without signals at the neutral latency, and a tier with no latency known at all by load and weight', () => {
    expect(adaptiveCost(undefined, 1, 700)).toBe(700);
    const nothing = contextOf({}, () => 0);
    expect(adaptiveStrategy.choose([member('A'), member('B')], nothing)?.decision).toEqual({
      strategy: 'adaptive',
      score: 1,
      rival: { route: 'B', score: 1 },
    });
  });

  it('measures an unknown route against the best latency seen, not the worst', () => {
    const draws = [0.99, 0.99]; // C (index 2) first, then B (index 1)
    const ctx = contextOf({ A: known(500), B: known(900) }, () => draws.shift() ?? 0);
    expect(adaptiveStrategy.choose([member('A'), member('B'), member('C')], ctx)).toMatchObject({
      route: 'C',
      decision: { score: 500, rival: { route: 'B', score: 900 } },
    });
    expect(adaptiveStrategy.name).toBe('adaptive');
  });

  it('spreads evenly over routes that are all equal', () => {
    const random = seededRandom(3);
    const equal = contextOf({ A: known(500), B: known(500), C: known(500) }, random);
    const members = [member('A'), member('B'), member('C')];
    const split = shares(() => adaptiveStrategy.choose(members, equal)?.route);
    for (const route of ['A', 'B', 'C']) expect(Math.abs((split[route] ?? 0) - 1 / 3)).toBeLessThan(0.04);
  });

  it('counts a route never seen as good as the best route seen, so it is tried', () => {
    const choice = adaptiveStrategy.choose(
      [member('A'), member('B')],
      contextOf({ A: known(900) }, () => 0),
    );
    // B (unknown) costs 900, A 900: a tie on equal weights goes to the first drawn, A.
    expect(choice?.decision).toEqual({ strategy: 'adaptive', score: 900, rival: { route: 'B', score: 900 } });
    const busy = contextOf({ A: known(900, { inFlight: 1 }) }, () => 0);
    expect(adaptiveStrategy.choose([member('A'), member('B')], busy)?.route).toBe('B');
  });

  it('lets a stale slow latency drift back to the best one seen', () => {
    const stale = known(8_800, { freshness: 0.5 });
    expect(adaptiveCost(stale, 1, 800)).toBe(4_800);
  });

  it('chooses a lone route with its score and no rival, and nothing from an empty tier', () => {
    expect(
      adaptiveStrategy.choose(
        [member('A')],
        contextOf({ A: known(700) }, () => 0.5),
      ),
    ).toEqual({
      model: 'A',
      route: 'A',
      decision: { strategy: 'adaptive', score: 700 },
    });
    expect(
      adaptiveStrategy.choose(
        [],
        contextOf({}, () => 0),
      ),
    ).toBeUndefined();
  });

  it('chooses among the routes of every member, each with its member’s weight', () => {
    const choice = adaptiveStrategy.choose(
      [member('A', 1, ['A', 'A~azure'])],
      contextOf({ A: known(5_000), 'A~azure': known(700) }, () => 0),
    );
    expect(choice).toMatchObject({ model: 'A', route: 'A~azure' });
  });

  it('takes most of the share from a route ten times slower over seeded draws of a group of three', () => {
    const random = seededRandom(9);
    const ctx = contextOf({ A: known(800), B: known(8_000), C: known(800) }, random);
    const split = shares(() => adaptiveStrategy.choose([member('A'), member('B'), member('C')], ctx)?.route);
    // Two distinct routes are always drawn, and B loses every comparison it is in.
    expect(split.B ?? 0).toBe(0);
    expect(Math.abs((split.A ?? 0) - 0.5)).toBeLessThan(0.05);
  });
});

describe('cost strategy', () => {
  const strategy = costStrategy(0.9);

  it('picks the cheapest route whose success rate reaches the threshold', () => {
    const ctx = contextOf({ A: known(1, { successRate: 0.5 }), B: known(1), C: known(1) }, () => 0, {
      A: 0.1,
      B: 0.5,
      C: 2,
    });
    expect(strategy.choose([member('A'), member('B'), member('C')], ctx)).toEqual({
      model: 'B',
      route: 'B',
      decision: { strategy: 'cost', score: 0.5, rival: { route: 'A', score: 0.1 } },
    });
  });

  it('keeps a route whose success rate is exactly the threshold', () => {
    const ctx = contextOf({ A: known(1, { successRate: 0.9 }), B: known(1) }, () => 0, { A: 0.1, B: 1 });
    expect(strategy.choose([member('A'), member('B')], ctx)?.route).toBe('A');
    const below = contextOf({ A: known(1, { successRate: 0.8999 }), B: known(1) }, () => 0, { A: 0.1, B: 1 });
    expect(strategy.choose([member('A'), member('B')], below)?.route).toBe('B');
  });

  it('draws by weight between routes equally cheap', () => {
    const random = seededRandom(5);
    const ctx = contextOf({}, random, { A: 1, B: 1 });
    const split = shares(() => strategy.choose([member('A', 3), member('B', 1)], ctx)?.route, 4_000);
    expect(Math.abs((split.A ?? 0) - 0.75)).toBeLessThan(0.03);
  });

  it('with no route healthy enough, takes the highest success rate, then the cheapest', () => {
    const ctx = contextOf(
      {
        A: known(1, { successRate: 0.5 }),
        B: known(1, { successRate: 0.7 }),
        C: known(1, { successRate: 0.7 }),
      },
      () => 0,
      { A: 0.1, B: 3, C: 2 },
    );
    expect(strategy.choose([member('A'), member('B'), member('C')], ctx)?.route).toBe('C');
  });

  it('blends input and output price, and names the cheapest other route as the rival', () => {
    expect(blendedPrice({ inputPerMTok: 1, outputPerMTok: 2 })).toBe(3);
    expect(blendedPrice(undefined)).toBe(Number.POSITIVE_INFINITY);
    const ctx = contextOf({}, () => 0, { A: 3, B: 0.5, C: 1 });
    expect(strategy.choose([member('A'), member('B'), member('C')], ctx)?.decision).toEqual({
      strategy: 'cost',
      score: 0.5,
      rival: { route: 'C', score: 1 },
    });
    expect(strategy.name).toBe('cost');
    expect(strategy.choose([], ctx)).toBeUndefined();
  });

  it('puts a route without a price after every priced one', () => {
    const ctx = contextOf({}, () => 0, { B: 40 });
    expect(strategy.choose([member('A'), member('B')], ctx)?.route).toBe('B');
  });
});

describe('selection with a strategy', () => {
  const none = { isBlocked: () => false, hasFailed: () => false };

  it('keeps weighted as it was: one draw by weight, the first eligible route, no decision', () => {
    const choice = weightedStrategy.choose(
      [member('A', 1, ['A~x', 'A']), member('B', 3)],
      contextOf({}, () => 0),
    );
    expect(choice).toEqual({ model: 'A', route: 'A~x' });
  });

  it('lets the strategy choose among the first eligible tier’s eligible routes only', () => {
    const clock = createFakeClock();
    const signals = createRouteSignals(clock.now);
    signals.observe('B', { ok: true, latencyMs: 100 });
    signals.observe('C', { ok: true, latencyMs: 50 });
    signals.observe('A~fast', { ok: true, latencyMs: 10 });
    const eligibility = {
      ...none,
      isBlocked: (k: string) => k === 'A',
      eligibleRoutes: (k: string) => (k === 'B' ? ['B'] : []),
    };
    const selection = selectModel(tiersOf([['A', 'B'], ['C']]), eligibility, () => 0, adaptiveStrategy, {
      now: clock.now(),
      signal: (r) => signals.read(r),
      price: () => undefined,
    });
    expect(selection).toEqual({
      key: 'B',
      tier: 0,
      failOpen: false,
      route: 'B',
      decision: { strategy: 'adaptive', score: 100 },
    });
  });
});
