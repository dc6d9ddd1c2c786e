import { describe, expect, it } from 'vitest';
import type { AttemptTimeouts } from '../../../lambda/core/router/route-types.js';
import type { Sleep } from '../../../lambda/core/time.js';
import { createRouterHarness, tiersOf } from '../../helpers/router-harness.js';
import { OK, type Step } from '../../helpers/scripted-model.js';

/** 40 tokens at 10 tokens/s: 4000 ms of output, so the total becomes max(5000, 2000 + 4000) = 6000 ms. */
const TIMEOUTS: AttemptTimeouts = {
  connectMs: 1_000,
  firstByteMs: 2_000,
  totalMs: 5_000,
  idleMs: 3_000,
  outputTokensPerSec: 10,
};
const MAX_TOKENS = 40;

function harness(a: Step, options: { deadlineMs?: number; timeouts?: AttemptTimeouts } = {}) {
  const h = createRouterHarness({
    models: { A: [a], B: [OK] },
    tiers: tiersOf([['A'], ['B']]),
    timeouts: options.timeouts ?? TIMEOUTS,
    policy: { deadlineMs: options.deadlineMs ?? 15_000 },
    // One counted failure opens a breaker: a timeout the route is blamed for shows as an opening.
    breaker: { minSamples: 1, failureRate: 0.5 },
  });
  const started: number[] = [];
  const sleep = h.deps.sleep;
  h.deps.sleep = ((ms, signal) => {
    started.push(ms);
    return sleep(ms, signal);
  }) satisfies Sleep;
  return { h, started };
}

async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

/** Runs one plain request whose first byte comes at 1000 ms, then moves the clock `afterMs` more. */
async function run(h: ReturnType<typeof harness>['h'], afterMs: number, maxTokens: number | undefined) {
  const pending = h.route({ maxTokens });
  await flush();
  h.clock.advance(1_000);
  await flush();
  h.clock.advance(afterMs);
  return pending;
}

describe('a plain attempt’s total limit makes room for the output the caller asked for', () => {
  it('keeps an answer that ends 1 ms inside firstByteMs + max_tokens at the expected rate', async () => {
    const { h, started } = harness({ paced: { firstByteAtMs: 1_000, doneAtMs: 5_999 } });
    const result = await run(h, 4_999, MAX_TOKENS);
    expect(result.ok && result.route).toBe('A:200');
    expect(started).toEqual([2_000, 5_000]);
  });

  it('blames the route for an answer still unfinished when it had the whole allowance', async () => {
    const { h } = harness({ paced: { firstByteAtMs: 1_000, doneAtMs: 60_000 } });
    const result = await run(h, 5_000, MAX_TOKENS);
    expect(result.ok && result.route).toBe('A:timeout,B:200');
    expect(h.attemptLines()[0]).toMatchObject({ outcome: 'timeout', timeoutPhase: 'total' });
    expect(h.attemptLines()[0]?.callerSized).toBeUndefined();
    expect(h.opened.map((o) => o.model)).toEqual(['A']);
  });

  it('expects 20 tokens/s of a route that sets no rate', async () => {
    const { outputTokensPerSec: _none, ...timeouts } = TIMEOUTS;
    // 100 tokens at 20/s: 5000 ms, so the total is 2000 + 5000 = 7000 ms.
    const { h, started } = harness({ paced: { firstByteAtMs: 1_000, doneAtMs: 6_999 } }, { timeouts });
    const result = await run(h, 5_999, 100);
    expect(result.ok && result.route).toBe('A:200');
    expect(started).toEqual([2_000, 6_000]);
  });

  it('keeps totalMs for a request that sets no max_tokens', async () => {
    const { h, started } = harness({ paced: { firstByteAtMs: 1_000, doneAtMs: 60_000 } });
    const result = await run(h, 4_000, undefined);
    expect(result.ok && result.route).toBe('A:timeout,B:200');
    expect(started.slice(0, 2)).toEqual([2_000, 4_000]);
    expect(h.opened.map((o) => o.model)).toEqual(['A']);
  });
});

describe('a timeout the caller’s max_tokens explains is not the route’s failure', () => {
  it('does not count a total timeout the deadline cut 1 ms before the output could be written', async () => {
    // First byte at 1000 ms + 4000 ms of output = 5000 ms needed; the deadline leaves 4999.
    const { h } = harness({ paced: { firstByteAtMs: 1_000, doneAtMs: 60_000 } }, { deadlineMs: 4_999 });
    const result = await run(h, 3_999, MAX_TOKENS);
    expect(result.ok).toBe(false);
    expect(result.ok === false && result.reason).toBe('deadline');
    expect(h.attemptLines()[0]).toMatchObject({
      outcome: 'timeout',
      timeoutPhase: 'total',
      callerSized: true,
    });
    expect(h.opened).toEqual([]);
    expect((await h.breakers.read('p')).has('A')).toBe(false);
  });

  it('counts a total timeout when the deadline left exactly the time the output needed', async () => {
    const { h } = harness({ paced: { firstByteAtMs: 1_000, doneAtMs: 60_000 } }, { deadlineMs: 5_000 });
    const result = await run(h, 4_000, MAX_TOKENS);
    expect(result.ok).toBe(false);
    expect(h.attemptLines()[0]?.callerSized).toBeUndefined();
    expect(h.opened.map((o) => o.model)).toEqual(['A']);
  });

  it('counts a first-byte timeout however much output the caller asked for', async () => {
    const { h } = harness({ hang: true }, { deadlineMs: 3_000 });
    const pending = h.route({ maxTokens: 1_000_000 });
    await flush();
    h.clock.advance(2_000);
    const result = await pending;
    expect(result.ok && result.route).toBe('A:timeout,B:200');
    expect(h.attemptLines()[0]).toMatchObject({ outcome: 'timeout', timeoutPhase: 'first_byte' });
    expect(h.attemptLines()[0]?.callerSized).toBeUndefined();
    expect(h.opened.map((o) => o.model)).toEqual(['A']);
  });
});
