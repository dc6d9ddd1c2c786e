import { describe, expect, it } from 'vitest';
import { createRouterHarness, tiersOf } from '../../helpers/router-harness.js';
import { OK, RATE_LIMITED, UNAVAILABLE } from '../../helpers/scripted-model.js';

describe('attempt loop', () => {
  it('walks seed 000: (A|B),C with A and B rate limited reaches C on attempt 3, opens A and B on the second request, starts at C on the third', async () => {
    const h = createRouterHarness({
      models: { A: [RATE_LIMITED], B: [RATE_LIMITED], C: [OK] },
      tiers: tiersOf([['A', 'B'], ['C']]),
    });

    const first = await h.route();
    expect(first.ok).toBe(true);
    expect(
      first.attempts
        .map((a) => a.model)
        .slice(0, 2)
        .sort(),
    ).toEqual(['A', 'B']);
    expect(first.attempts.map((a) => a.model)[2]).toBe('C');
    expect(first.attempts.map((a) => a.action)).toEqual(['first', 'fallback', 'fallback']);
    expect(h.opened).toEqual([]);

    const second = await h.route();
    expect(second.ok).toBe(true);
    expect(second.attempts).toHaveLength(3);
    expect(h.opened.map((o) => [o.model, o.reason]).sort()).toEqual([
      ['A', 'consecutive_429'],
      ['B', 'consecutive_429'],
    ]);

    const third = await h.route();
    expect(third.ok).toBe(true);
    expect(third.attempts.map((a) => [a.model, a.tier, a.action])).toEqual([['C', 2, 'first']]);
    expect(h.calls('A') + h.calls('B')).toBe(4);
  });

  it('does not pick a model again in the same request while another eligible model exists', async () => {
    const h = createRouterHarness({
      models: { A: [UNAVAILABLE], B: [UNAVAILABLE], C: [UNAVAILABLE] },
      tiers: tiersOf([['A', 'B', 'C']]),
    });
    const result = await h.route();
    expect(result.ok).toBe(false);
    expect(new Set(result.attempts.map((a) => a.model)).size).toBe(3);
  });

  it('retries the only model of a one-model chain, labelled as a retry', async () => {
    const h = createRouterHarness({ models: { A: [UNAVAILABLE, OK] }, tiers: tiersOf([['A']]) });
    const result = await h.route();
    expect(result.ok).toBe(true);
    expect(result.attempts.map((a) => a.action)).toEqual(['first', 'retry']);
    expect(h.calls('A')).toBe(2);
  });

  it('labels a retry fail-open when the model it retries has opened meanwhile', async () => {
    const h = createRouterHarness({
      models: { A: [{ fail: 'upstream_auth', status: 401 }, OK] },
      tiers: tiersOf([['A']]),
    });
    const result = await h.route();
    expect(result.attempts.map((a) => a.action)).toEqual(['first', 'fail-open']);
  });

  it('starts no attempt when the breaker read took the time that was left', async () => {
    const h = createRouterHarness({
      models: { A: [OK] },
      tiers: tiersOf([['A']]),
      policy: { deadlineMs: 1_000 },
    });
    const read = h.breakers.read.bind(h.breakers);
    h.breakers.read = async (pipeline) => {
      h.clock.advance(1_500);
      return read(pipeline);
    };
    const result = await h.route();
    expect(result.ok === false && result.reason).toBe('deadline');
    expect(h.calls('A')).toBe(0);
  });

  it('answers a request whose routes were all rate limited even when a ledger write throws', async () => {
    const h = createRouterHarness({ models: { A: [RATE_LIMITED], B: [OK] }, tiers: tiersOf([['A'], ['B']]) });
    h.deps.ledger = () => {
      throw new Error('ENOSPC: no space left on device');
    };
    const result = await h.route();
    expect(result.ok).toBe(true);
    expect(h.calls('B')).toBe(1);
  });

  it('records every attempt before the next selection, so a breaker opened on attempt 1 is excluded on attempt 2', async () => {
    const h = createRouterHarness({
      models: { A: [{ fail: 'upstream_auth', status: 401 }], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
    });
    await h.route();
    expect(h.opened).toEqual([expect.objectContaining({ model: 'A', reason: 'upstream_auth', alert: true })]);
    const next = await h.route();
    expect(next.attempts.map((a) => a.model)).toEqual(['B']);
  });

  it('opens at once on a 404 model-not-found and raises an alert', async () => {
    const h = createRouterHarness({
      models: { A: [{ fail: 'model_not_found', status: 404 }], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
    });
    const result = await h.route();
    expect(result.ok).toBe(true);
    expect(h.opened).toEqual([
      expect.objectContaining({ model: 'A', reason: 'model_not_found', alert: true }),
    ]);
  });

  it('fails open to tier 1 when every member of every tier is open', async () => {
    const h = createRouterHarness({
      models: { A: [RATE_LIMITED, RATE_LIMITED, OK], B: [RATE_LIMITED] },
      tiers: tiersOf([['A'], ['B']]),
      policy: { maxAttempts: 2 },
    });
    await h.route(); // A 429, B 429
    await h.route(); // A 429 → opens, B 429 → opens
    expect(h.opened.map((o) => o.model).sort()).toEqual(['A', 'B']);
    const result = await h.route();
    expect(result.ok).toBe(true);
    expect(result.attempts[0]).toMatchObject({ model: 'A', tier: 1, action: 'fail-open' });
  });

  it.each([
    ['invalid request (400)', { fail: 'invalid_request' as const, status: 400 }],
    ['content-policy refusal', { fail: 'content_policy' as const, status: 400 }],
    ['context length exceeded', { fail: 'context_length' as const, status: 400 }],
  ])('stops at once on %s: no fallback, no breaker count', async (_name, step) => {
    const h = createRouterHarness({ models: { A: [step], B: [OK] }, tiers: tiersOf([['A'], ['B']]) });
    const result = await h.route();
    expect(result.ok).toBe(false);
    expect(result.ok === false && result.reason).toBe('stopped');
    expect(h.calls('B')).toBe(0);
    expect((await h.store.readPipeline('p', h.clock.now())).get('A')).toBeUndefined();
  });

  it('falls back on context length when the pipeline opts in', async () => {
    const h = createRouterHarness({
      models: { A: [{ fail: 'context_length', status: 400 }], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
      policy: { fallbackOnContextLength: true },
    });
    const result = await h.route();
    expect(result.ok && result.model).toBe('B');
  });

  it('starts no attempt after the deadline, and the last attempt gets only the time left', async () => {
    const h = createRouterHarness({
      models: { A: [{ hang: true }], B: [{ hang: true }], C: [OK] },
      tiers: tiersOf([['A'], ['B'], ['C']]),
      policy: { deadlineMs: 10_000 },
      timeoutMs: 6_000,
    });
    const pending = h.route();
    await vi_waitFor(() => h.calls('A') === 1);
    h.clock.advance(6_000);
    await vi_waitFor(() => h.calls('B') === 1);
    expect(h.models.get('B')?.calls[0]?.timeoutMs).toBe(4_000);
    h.clock.advance(4_000);
    const result = await pending;
    expect(result.ok === false && result.reason).toBe('deadline');
    expect(result.attempts.map((a) => a.outcome)).toEqual(['timeout', 'timeout']);
    expect(h.calls('C')).toBe(0);
  });

  it('makes no second attempt when the caller aborts during the first', async () => {
    const h = createRouterHarness({
      models: { A: [{ hang: true }], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
    });
    const caller = new AbortController();
    const pending = h.route({ signal: caller.signal });
    await vi_waitFor(() => h.calls('A') === 1);
    caller.abort();
    const result = await pending;
    expect(result.ok === false && result.reason).toBe('cancelled');
    expect(result.attempts.map((a) => a.outcome)).toEqual(['cancelled']);
    expect(h.calls('B')).toBe(0);
    expect((await h.store.readPipeline('p', h.clock.now())).get('A')).toBeUndefined();
  });

  it('leaves the same model in another pipeline untouched when it opens in one', async () => {
    const h = createRouterHarness({
      models: { A: [RATE_LIMITED, RATE_LIMITED, OK], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
    });
    await h.route({ pipeline: 'x' });
    await h.route({ pipeline: 'x' });
    expect(h.opened).toEqual([expect.objectContaining({ pipeline: 'x', model: 'A' })]);
    const y = await h.route({ pipeline: 'y' });
    expect(y.attempts.map((a) => a.model)).toEqual(['A']);
    const x = await h.route({ pipeline: 'x' });
    expect(x.attempts.map((a) => a.model)).toEqual(['B']);
  });

  it('honours Retry-After as a cooling hint: the model is skipped until it passes', async () => {
    const h = createRouterHarness({
      models: { A: [{ fail: 'rate_limited', status: 429, retryAfterMs: 5_000 }, OK], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
    });
    expect((await h.route()).attempts.map((a) => a.model)).toEqual(['A', 'B']);
    expect((await h.route()).attempts.map((a) => a.model)).toEqual(['B']);
    h.clock.advance(5_000);
    expect((await h.route()).attempts.map((a) => a.model)).toEqual(['A']);
  });

  it('keeps routing when the breaker store fails', async () => {
    const failing = {
      readPipeline: async () => {
        throw new Error('ProvisionedThroughputExceededException');
      },
      record: async () => {
        throw new Error('socket hang up');
      },
      tryOpen: async () => {
        throw new Error('socket hang up');
      },
      readRoutes: async () => {
        throw new Error('socket hang up');
      },
      coolRoute: async () => {
        throw new Error('socket hang up');
      },
      claimProbe: async () => {
        throw new Error('socket hang up');
      },
      startRamp: async () => {
        throw new Error('socket hang up');
      },
      claimRouteProbe: async () => {
        throw new Error('socket hang up');
      },
      settleRouteProbe: async () => {
        throw new Error('socket hang up');
      },
    };
    const h = createRouterHarness({
      models: { A: [RATE_LIMITED], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
      store: failing,
    });
    expect((await h.route()).ok).toBe(true);
    expect((await h.route()).ok).toBe(true);
    expect(h.storeErrors).toContain('read');
    expect(h.storeErrors).toContain('record');
    // the process still learned that A opened, and routes around it
    expect((await h.route()).attempts.map((a) => a.model)).toEqual(['B']);
  });
});

async function vi_waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (condition()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error('condition not reached');
}
