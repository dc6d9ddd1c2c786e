import { describe, expect, it } from 'vitest';
import { terminalError } from '../../../lambda/core/router/terminal-error.js';
import { createRouterHarness, tiersOf } from '../../helpers/router-harness.js';
import { OK, RATE_LIMITED, UNAVAILABLE } from '../../helpers/scripted-model.js';

describe('routes of one model', () => {
  it('tries the model’s other routes before substituting the next tier', async () => {
    const h = createRouterHarness({
      models: { A: [UNAVAILABLE], 'A~azure': [UNAVAILABLE], 'A~second': [OK], B: [OK] },
      routes: { A: ['A', 'A~azure', 'A~second'] },
      tiers: tiersOf([['A'], ['B']]),
    });
    const result = await h.route();
    expect(result.ok && result.model).toBe('A');
    expect(result.route).toBe('A:503,A~azure:503,A~second:200');
    expect(h.calls('B')).toBe(0);
    expect(h.attemptLines().map((l) => [l.model, l.provider, l.action, l.step])).toEqual([
      ['A', 'fake', 'first', undefined],
      ['A', 'fake', 'fallback', 'route'],
      ['A', 'fake', 'fallback', 'route'],
    ]);
  });

  it('substitutes the next tier once every route of the model failed, and labels each step', async () => {
    const h = createRouterHarness({
      models: { A: [RATE_LIMITED], 'A~azure': [UNAVAILABLE], B: [OK] },
      routes: { A: ['A', 'A~azure'] },
      tiers: tiersOf([['A'], ['B']]),
    });
    const result = await h.route();
    expect(result.ok && result.model).toBe('B');
    expect(result.route).toBe('A:429,A~azure:503,B:200');
    expect(h.attemptLines().map((l) => l.step)).toEqual([undefined, 'route', 'substitute']);
    expect(h.requestLines()[0]).toMatchObject({ reason: 'success', model: 'B' });
  });

  it('keeps a breaker per route: an open route is skipped while the model’s other route serves first', async () => {
    const h = createRouterHarness({
      models: { A: [RATE_LIMITED], 'A~azure': [OK], B: [OK] },
      routes: { A: ['A', 'A~azure'] },
      tiers: tiersOf([['A'], ['B']]),
    });
    await h.route();
    await h.route(); // A's second 429 in a row opens the breaker of route A only
    const snapshots = await h.breakers.read('p');
    expect([...snapshots.keys()].sort()).toEqual(['A', 'A~azure']);
    const third = await h.route();
    expect(third.route).toBe('A~azure:200');
    expect(h.attemptLines().at(-1)).toMatchObject({ model: 'A', action: 'first' });
  });

  it('labels the same route again a retry', async () => {
    const h = createRouterHarness({
      models: { A: [UNAVAILABLE, OK] },
      tiers: tiersOf([['A']]),
    });
    const result = await h.route();
    expect(result.route).toBe('A:503,A:200');
    expect(h.attemptLines().map((l) => [l.action, l.step])).toEqual([
      ['first', undefined],
      ['retry', 'retry'],
    ]);
  });
});

describe('step labels of a return to a route already tried', () => {
  it('labels a return to the first model after every route failed a retry, not a substitute', async () => {
    const h = createRouterHarness({
      models: { alpha: [UNAVAILABLE], beta: [UNAVAILABLE] },
      tiers: tiersOf([['alpha'], ['beta']]),
    });
    const result = await h.route();
    expect(result.route).toBe('alpha:503,beta:503,alpha:503');
    expect(h.attemptLines().map((l) => [l.action, l.step ?? 'first'])).toEqual([
      ['first', 'first'],
      ['fallback', 'substitute'],
      ['retry', 'retry'],
    ]);
  });

  it('labels the other route of a model tried before a route step when it is new to the request', async () => {
    const h = createRouterHarness({
      models: { A: [UNAVAILABLE], 'A~azure': [UNAVAILABLE], B: [UNAVAILABLE] },
      routes: { A: ['A', 'A~azure'] },
      tiers: tiersOf([['A'], ['B']]),
      policy: { maxAttempts: 4 },
    });
    await h.route();
    expect(h.attemptLines().map((l) => `${l.model}:${l.step ?? 'first'}`)).toEqual([
      'A:first',
      'A:route',
      'B:substitute',
      'A:retry',
    ]);
  });
});

describe('substitution limits', () => {
  const failingChain = {
    models: { A: [UNAVAILABLE], B: [UNAVAILABLE], C: [OK] },
    tiers: tiersOf([['A'], ['B'], ['C']]),
  };

  it('lets tier N answer when maxTier is exactly N', async () => {
    const h = createRouterHarness({
      ...failingChain,
      models: { A: [UNAVAILABLE], B: [OK], C: [OK] },
      policy: { maxTier: 2 },
    });
    const result = await h.route();
    expect(result.ok && result.model).toBe('B');
  });

  it('never calls a tier past maxTier, and names the limit when every allowed route failed', async () => {
    const h = createRouterHarness({ ...failingChain, policy: { maxTier: 2, maxAttempts: 5 } });
    const result = await h.route();
    expect(result.ok).toBe(false);
    expect(h.calls('C')).toBe(0);
    expect(h.attemptLines().every((l) => l.tier <= 2)).toBe(true);
    expect(h.requestLines()[0]).toMatchObject({ reason: 'exhausted', limit: 'maxTier' });
    if (result.ok) return;
    expect(terminalError(result, 'p')).toMatchObject({ status: 503, code: 'max_tier_reached' });
    expect(terminalError(result, 'p').message).toContain('past tier 2 (maxTier: 2)');
  });

  it('with substitution forbidden, only the first tier’s routes answer, fail-open included', async () => {
    const h = createRouterHarness({
      models: { A: [RATE_LIMITED], 'A~azure': [RATE_LIMITED], B: [OK] },
      routes: { A: ['A', 'A~azure'] },
      tiers: tiersOf([['A'], ['B']]),
      policy: { substitution: 'forbid', maxAttempts: 4 },
    });
    await h.route(); // opens nothing yet: one 429 per route
    const result = await h.route(); // both routes now open: fail-open stays within tier 1
    expect(h.calls('B')).toBe(0);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.limit).toEqual({ setting: 'substitution', maxTier: 1 });
    const error = terminalError(result, 'p');
    expect(error).toMatchObject({ status: 429, code: 'substitution_forbidden', type: 'rate_limit_error' });
    expect(error.retryAfterSeconds).toBeGreaterThan(0);
  });

  it('does not name a limit the chain never reached', async () => {
    const h = createRouterHarness({
      models: { A: [UNAVAILABLE] },
      tiers: tiersOf([['A']]),
      policy: { maxTier: 1 },
    });
    const result = await h.route();
    expect(result.ok || terminalError(result, 'p').code).toBe('all_routes_unavailable');
    expect(h.requestLines()[0]?.limit).toBeUndefined();
  });

  it('lets the first tier’s group members substitute each other under forbid', async () => {
    const h = createRouterHarness({
      models: { A: [UNAVAILABLE], B: [OK], C: [OK] },
      tiers: tiersOf([['A', 'B'], ['C']]),
      policy: { substitution: 'forbid' },
      seed: 1,
    });
    const result = await h.route();
    expect(result.ok && result.model).toBe('B');
  });
});
