import { describe, expect, it } from 'vitest';
import { routeStream } from '../../../lambda/core/router/route-chat.js';
import type { Sleep } from '../../../lambda/core/time.js';
import { createRouterHarness, tiersOf } from '../../helpers/router-harness.js';
import { OK, RATE_LIMITED, UNAVAILABLE } from '../../helpers/scripted-model.js';

/** Records every timer the router starts through the injected `sleep`. */
function countSleeps(h: ReturnType<typeof createRouterHarness>): number[] {
  const started: number[] = [];
  const sleep = h.deps.sleep;
  h.deps.sleep = ((ms, signal) => {
    started.push(ms);
    return sleep(ms, signal);
  }) satisfies Sleep;
  return started;
}

async function settle(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !condition(); i++) await new Promise((r) => setImmediate(r));
  if (!condition()) throw new Error('condition not reached');
}

describe('attempt timer', () => {
  it('starts one timer per attempt and stops each when its attempt ends', async () => {
    const h = createRouterHarness({
      models: { A: [RATE_LIMITED], B: [UNAVAILABLE], C: [OK] },
      tiers: tiersOf([['A'], ['B'], ['C']]),
      timeoutMs: 6_000,
    });
    const started = countSleeps(h);
    const result = await h.route();
    expect(result.ok && result.route).toBe('A:429,B:503,C:200');
    expect(started).toEqual([6_000, 6_000, 6_000]);
    expect(h.clock.pending()).toBe(0);
  });

  it('gives each timer min(model timeout, time left before the deadline)', async () => {
    const h = createRouterHarness({
      models: { A: [{ hang: true }], B: [{ hang: true }] },
      tiers: tiersOf([['A'], ['B']]),
      policy: { deadlineMs: 10_000 },
      timeoutMs: 6_000,
    });
    const started = countSleeps(h);
    const pending = h.route();
    await settle(() => h.calls('A') === 1);
    h.clock.advance(6_000);
    await settle(() => h.calls('B') === 1);
    h.clock.advance(4_000);
    const result = await pending;
    expect(started).toEqual([6_000, 4_000]);
    expect(result.attempts.map((a) => a.outcome)).toEqual(['timeout', 'timeout']);
  });

  it('keeps no attempt timer once a stream is committed, so only the caller can end it', async () => {
    const h = createRouterHarness({ models: { A: [OK] }, tiers: tiersOf([['A']]), timeoutMs: 6_000 });
    const started = countSleeps(h);
    const result = await routeStream(
      {
        requestId: 'r',
        pipeline: 'p',
        tiers: tiersOf([['A']]),
        policy: { maxAttempts: 3, deadlineMs: 15_000, fallbackOnContextLength: false, substitution: 'allow' },
        stream: true,
      },
      h.deps,
      { messages: [{ role: 'user', content: 'hi' }] },
    );
    expect(result.ok).toBe(true);
    expect(started).toEqual([6_000]);
    expect(h.clock.pending()).toBe(0);
    h.clock.advance(60_000);
    expect(result.ok && result.signal.aborted).toBe(false);
  });
});
