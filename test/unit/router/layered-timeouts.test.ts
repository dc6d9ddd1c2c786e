import { describe, expect, it } from 'vitest';
import { routeStream } from '../../../lambda/core/router/route-chat.js';
import type { AttemptTimeouts } from '../../../lambda/core/router/route-types.js';
import type { Sleep } from '../../../lambda/core/time.js';
import { createRouterHarness, tiersOf } from '../../helpers/router-harness.js';
import { OK, type Step } from '../../helpers/scripted-model.js';

const TIMEOUTS: AttemptTimeouts = { connectMs: 1_000, firstByteMs: 2_000, totalMs: 5_000, idleMs: 3_000 };

function harness(a: Step, extra: { deadlineMs?: number } = {}) {
  const h = createRouterHarness({
    models: { A: [a], B: [OK] },
    tiers: tiersOf([['A'], ['B']]),
    timeouts: TIMEOUTS,
    policy: { deadlineMs: extra.deadlineMs ?? 15_000 },
    // One failed sample opens a breaker: a timeout that counts for it shows as an opening.
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

/** Lets promise callbacks and timers queued on the real event loop run. */
async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

const streamOf = (h: ReturnType<typeof harness>['h']) =>
  routeStream(
    {
      requestId: 'r',
      pipeline: 'p',
      tiers: tiersOf([['A'], ['B']]),
      policy: { maxAttempts: 3, deadlineMs: 15_000, fallbackOnContextLength: false, substitution: 'allow' },
      stream: true,
    },
    h.deps,
    { messages: [{ role: 'user', content: 'hi' }] },
  );

describe('layered timeouts: the attempt timer moves from first byte to total', () => {
  it('keeps an answer whose first byte comes 1 ms inside its limit and ends 1 ms inside the total', async () => {
    const { h, started } = harness({ paced: { firstByteAtMs: 1_999, doneAtMs: 4_999 } });
    const pending = h.route();
    await flush();
    h.clock.advance(1_999);
    await flush();
    h.clock.advance(3_000);
    const result = await pending;
    expect(result.ok && result.route).toBe('A:200');
    // The timer's first phase ends at the first-byte limit; the second at the total, counted from the start.
    expect(started).toEqual([2_000, 3_001]);
    expect(h.clock.pending()).toBe(0);
  });

  it('fails a first byte that comes at its limit as a timeout of phase first_byte, counted by the breaker, and falls back', async () => {
    const { h } = harness({ paced: { firstByteAtMs: 2_000, doneAtMs: 2_001 } });
    const pending = h.route();
    await flush();
    h.clock.advance(2_000);
    const result = await pending;
    expect(result.ok && result.route).toBe('A:timeout,B:200');
    expect(h.attemptLines().map((l) => [l.model, l.outcome, l.timeoutPhase, l.phase])).toEqual([
      ['A', 'timeout', 'first_byte', 'before_output'],
      ['B', 'ok', undefined, 'after_output'],
    ]);
    expect(h.opened.map((o) => o.model)).toEqual(['A']);
  });

  it('fails an answer that is not complete at the total limit as a timeout of phase total', async () => {
    const { h } = harness({ paced: { firstByteAtMs: 1_000, doneAtMs: 5_000 } });
    const pending = h.route();
    await flush();
    h.clock.advance(1_000);
    await flush();
    h.clock.advance(4_000);
    const result = await pending;
    expect(result.ok && result.route).toBe('A:timeout,B:200');
    expect(h.attemptLines()[0]).toMatchObject({ outcome: 'timeout', timeoutPhase: 'total' });
  });

  it('caps the first-byte limit at the time left before the request deadline', async () => {
    const { h, started } = harness({ hang: true }, { deadlineMs: 1_500 });
    const pending = h.route();
    await flush();
    h.clock.advance(1_500);
    const result = await pending;
    expect(started[0]).toBe(1_500);
    expect(result.ok).toBe(false);
    expect(h.attemptLines()[0]).toMatchObject({ outcome: 'timeout', timeoutPhase: 'first_byte' });
  });

  it('commits a stream whose first event comes 1 ms inside the first-byte limit and never cuts it for its length', async () => {
    const { h, started } = harness({ paced: { firstByteAtMs: 1_999, doneAtMs: 60_000 } });
    const pending = streamOf(h);
    await flush();
    h.clock.advance(1_999);
    const result = await pending;
    expect(result.ok && result.route).toBe('A:200');
    expect(started).toEqual([2_000]);
    if (!result.ok) return;
    const rest = result.value.rest.next();
    h.clock.advance(58_001);
    expect(await rest).toMatchObject({ done: false, value: { type: 'finish' } });
    expect(result.signal.aborted).toBe(false);
  });

  it('falls back before the commit when a stream’s first event comes at the first-byte limit', async () => {
    const { h } = harness({ paced: { firstByteAtMs: 2_000, doneAtMs: 2_500 } });
    const pending = streamOf(h);
    await flush();
    h.clock.advance(2_000);
    const result = await pending;
    expect(result.ok && result.route).toBe('A:timeout,B:200');
    expect(h.attemptLines()[0]).toMatchObject({ outcome: 'timeout', timeoutPhase: 'first_byte' });
  });
});
