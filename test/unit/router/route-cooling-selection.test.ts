import { describe, expect, it } from 'vitest';
import { createRouterHarness, tiersOf } from '../../helpers/router-harness.js';
import { OK, RATE_LIMITED, type Step } from '../../helpers/scripted-model.js';

/** Every model key is its own account route, but for `A2`, which calls A's account (same provider and upstream id). */
const COOLING = {
  coolMs: 5_000,
  readCacheMs: 1_000,
  accountRouteOf: (key: string) => (key === 'A2' ? 'acct/A' : `acct/${key}`),
};

const harness = (a: Step[], tiers = tiersOf([['A'], ['B']])) =>
  createRouterHarness({ models: { A: a, A2: [OK], B: [OK] }, tiers, routeCooling: COOLING });

describe('selection with account-route cooling', () => {
  it('skips a route cooling for another pipeline’s 429, says so, and uses it again at exactly coolMs', async () => {
    const h = harness([RATE_LIMITED, OK]);
    expect((await h.route({ pipeline: 'p1' })).route).toBe('A:429,B:200');
    h.clock.advance(4_999);
    const skipped = await h.route({ pipeline: 'p2' });
    expect(skipped).toMatchObject({ ok: true, model: 'B', route: '!A:cooling,B:200' });
    expect(h.attemptLines().at(-1)?.skipped).toEqual([
      {
        route: 'A',
        reason: 'route_cooling',
        until: new Date(h.clock.now() + 1).toISOString(),
        cooledBy: 'p1',
      },
    ]);
    expect(h.calls('A')).toBe(1);
    h.clock.advance(1);
    expect((await h.route({ pipeline: 'p2' })).route).toBe('A:200');
  });

  it('honours the Retry-After instead of coolMs, to the millisecond', async () => {
    const h = harness([{ ...RATE_LIMITED, retryAfterMs: 2_000 }, OK]);
    await h.route({ pipeline: 'p1' });
    h.clock.advance(1_999);
    expect((await h.route({ pipeline: 'p2' })).route).toBe('!A:cooling,B:200');
    h.clock.advance(1);
    expect((await h.route({ pipeline: 'p2' })).route).toBe('A:200');
  });

  it('cools every model key that calls the same account route', async () => {
    const h = harness([RATE_LIMITED], tiersOf([['A'], ['A2'], ['B']]));
    await h.route({ pipeline: 'p1' });
    expect((await h.route({ pipeline: 'p2' })).route).toBe('!A:cooling,!A2:cooling,B:200');
    expect(h.calls('A2')).toBe(0);
  });

  it('fails open when every route is cooling', async () => {
    const h = harness([RATE_LIMITED, OK], tiersOf([['A']]));
    await h.route({ pipeline: 'p1' });
    const result = await h.route({ pipeline: 'p2' });
    expect(result).toMatchObject({ ok: true, route: 'A:200' });
    expect(h.attemptLines().at(-1)).toMatchObject({ model: 'A', action: 'fail-open' });
  });

  it('leaves the pipeline breaker’s rule as it was: its second 429 in a row opens it', async () => {
    const h = harness([RATE_LIMITED]);
    await h.route({ pipeline: 'p1' });
    expect(h.opened).toEqual([]);
    h.clock.advance(5_000);
    await h.route({ pipeline: 'p1' });
    expect(h.opened).toEqual([
      expect.objectContaining({ pipeline: 'p1', model: 'A', reason: 'consecutive_429' }),
    ]);
  });
});
