import { describe, expect, it } from 'vitest';
import type { AttemptSample } from '../../../lambda/core/breaker/breaker-state.js';
import { terminalError } from '../../../lambda/core/router/terminal-error.js';
import { createRouterHarness, tiersOf } from '../../helpers/router-harness.js';
import { OK, type Step, UNAVAILABLE } from '../../helpers/scripted-model.js';

const NO_KEY: Step = { fail: 'not_configured' };

/** The router harness, with every breaker read and record counted as the loop makes it. */
function harness(options: Parameters<typeof createRouterHarness>[0]) {
  const h = createRouterHarness(options);
  const recorded: Array<[string, AttemptSample]> = [];
  let reads = 0;
  const { read, record } = h.breakers;
  h.breakers.read = (pipeline) => {
    reads += 1;
    return read(pipeline);
  };
  h.breakers.record = (pipeline, model, sample) => {
    recorded.push([model, sample]);
    return record(pipeline, model, sample);
  };
  return { ...h, recorded, reads: () => reads };
}

describe('attempt loop: a model whose provider has no key (not_configured)', () => {
  it('falls back to the next route and writes nothing about the keyless model to the breaker store', async () => {
    const h = harness({ models: { A: [NO_KEY], B: [OK] }, tiers: tiersOf([['A'], ['B']]) });
    const result = await h.route();

    expect(result.ok && result.model).toBe('B');
    expect(result.route).toBe('A:not_configured,B:200');
    expect(h.recorded.map(([model, sample]) => [model, sample.outcome])).toEqual([['B', 'ok']]);
    expect([...(await h.store.readPipeline('p', h.clock.now())).keys()]).toEqual(['B']);
    expect(h.opened).toEqual([]);
  });

  it('writes an attempt line with outcome not_configured and no status, then the fallback', async () => {
    const h = harness({ models: { A: [NO_KEY], B: [OK] }, tiers: tiersOf([['A'], ['B']]) });
    await h.route();

    const [first, second] = h.attemptLines();
    expect(first).toMatchObject({
      attempt: 1,
      tier: 1,
      model: 'A',
      action: 'first',
      outcome: 'not_configured',
      phase: 'before_output',
    });
    expect(first?.status).toBeUndefined();
    expect(second).toMatchObject({ attempt: 2, tier: 2, model: 'B', action: 'fallback', outcome: 'ok' });
    expect(h.requestLines()).toEqual([
      expect.objectContaining({
        reason: 'success',
        attempts: 2,
        model: 'B',
        route: 'A:not_configured,B:200',
      }),
    ]);
  });

  it('does not use up one of maxAttempts: two upstream attempts still follow it when maxAttempts is 2', async () => {
    const h = harness({
      models: { A: [NO_KEY], B: [UNAVAILABLE, OK] },
      tiers: tiersOf([['A'], ['B']]),
      policy: { maxAttempts: 2 },
    });
    const result = await h.route();
    expect(result.ok).toBe(true);
    expect(result.attempts.map((a) => [a.model, a.action, a.outcome])).toEqual([
      ['A', 'first', 'not_configured'],
      ['B', 'fallback', 'unavailable'],
      ['B', 'retry', 'ok'],
    ]);
  });

  it('still stops at maxAttempts upstream attempts', async () => {
    const h = harness({
      models: { A: [NO_KEY], B: [UNAVAILABLE, UNAVAILABLE, OK] },
      tiers: tiersOf([['A'], ['B']]),
      policy: { maxAttempts: 2 },
    });
    const result = await h.route();
    expect(result.ok === false && result.reason).toBe('exhausted');
    expect(h.calls('B')).toBe(2);
  });

  it('does not pick the keyless model again in the same request, not even to fail open', async () => {
    const h = harness({ models: { A: [NO_KEY], B: [UNAVAILABLE] }, tiers: tiersOf([['A', 'B']]) });
    const result = await h.route();
    expect(result.ok).toBe(false);
    expect(h.calls('A')).toBe(1);
    expect(h.calls('B')).toBe(3);
  });

  it('reads the breakers once for the keyless attempt and the one after it', async () => {
    const h = harness({ models: { A: [NO_KEY], B: [OK] }, tiers: tiersOf([['A'], ['B']]) });
    await h.route();
    expect(h.reads()).toBe(1);
  });

  it('never opens a breaker or raises an alert, however many requests meet the missing key', async () => {
    const h = harness({ models: { A: [NO_KEY], B: [OK] }, tiers: tiersOf([['A'], ['B']]) });
    for (let i = 0; i < 10; i++) await h.route();
    expect(h.opened).toEqual([]);
    expect(h.recorded.filter(([model]) => model === 'A')).toEqual([]);
    expect(h.calls('A')).toBe(10);
  });

  it('uses the model again as soon as it has a key: the next request is served by it first', async () => {
    const h = harness({ models: { A: [NO_KEY, OK], B: [OK] }, tiers: tiersOf([['A'], ['B']]) });
    await h.route();
    const second = await h.route();
    expect(second.ok && second.route).toBe('A:200');
  });

  it('ends exhausted when no route has a key, and the caller gets 503 provider_not_configured', async () => {
    const h = harness({ models: { A: [NO_KEY], B: [NO_KEY] }, tiers: tiersOf([['A', 'B']]) });
    const result = await h.route();
    if (result.ok) throw new Error('expected a failure');
    expect(result.reason).toBe('exhausted');
    expect(result.attempts).toHaveLength(2);
    expect(h.recorded).toEqual([]);
    expect(h.requestLines()).toEqual([
      expect.objectContaining({ reason: 'exhausted', attempts: 2, failureClass: 'not_configured' }),
    ]);
    expect(terminalError(result, 'p')).toMatchObject({ status: 503, code: 'provider_not_configured' });
  });
});
