import { describe, expect, it } from 'vitest';
import { createRouterHarness, tiersOf } from '../../helpers/router-harness.js';
import { OK, RATE_LIMITED } from '../../helpers/scripted-model.js';

describe('attempt ledger', () => {
  it('writes one line per attempt and one per request, with the fields of docs/design.md#evidence-the-ledger-and-headers', async () => {
    const h = createRouterHarness({
      models: {
        A: [{ ...RATE_LIMITED, retryAfterMs: 2_000 }],
        B: [{ ok: true, tokens: [1_000, 500], takesMs: 120 }],
      },
      tiers: tiersOf([['A'], ['B']]),
    });
    const result = await h.route();
    expect(result.ok).toBe(true);
    expect(h.attemptLines()).toEqual([
      {
        type: 'attempt',
        requestId: 'req-1',
        pipeline: 'p',
        attempt: 1,
        tier: 1,
        model: 'A',
        provider: 'fake',
        action: 'first',
        outcome: 'rate_limited',
        status: 429,
        phase: 'before_output',
        latencyMs: 0,
        usage: undefined,
        costUsd: undefined,
        retryAfterMs: 2_000,
      },
      {
        type: 'attempt',
        requestId: 'req-1',
        pipeline: 'p',
        attempt: 2,
        tier: 2,
        model: 'B',
        provider: 'fake',
        action: 'fallback',
        step: 'substitute',
        outcome: 'ok',
        status: 200,
        phase: 'after_output',
        latencyMs: 120,
        usage: { inputTokens: 1_000, outputTokens: 500 },
        costUsd: (1_000 * 1 + 500 * 2) / 1e6,
      },
    ]);
    expect(h.requestLines()).toEqual([
      expect.objectContaining({
        type: 'request',
        requestId: 'req-1',
        reason: 'success',
        attempts: 2,
        model: 'B',
        route: 'A:429,B:200',
        usage: { inputTokens: 1_000, outputTokens: 500 },
        costUsd: 0.002,
        stream: false,
      }),
    ]);
  });

  it("keeps the caller's x-request-id on the request line only, beside the gateway's own id", async () => {
    const h = createRouterHarness({
      models: { A: [RATE_LIMITED, OK], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
    });
    await h.route({ clientRequestId: 'trace-42' });
    await h.route();
    expect(h.requestLines().map((l) => [l.requestId, l.clientRequestId])).toEqual([
      ['req-1', 'trace-42'],
      ['req-2', undefined],
    ]);
    expect(h.requestLines()[1]).not.toHaveProperty('clientRequestId');
    // The first request fell back (A 429, then B); the second was answered by A at once.
    expect(h.attemptLines().map((l) => [l.requestId, l.model])).toEqual([
      ['req-1', 'A'],
      ['req-1', 'B'],
      ['req-2', 'A'],
    ]);
    for (const line of h.attemptLines()) expect(line).not.toHaveProperty('clientRequestId');
  });

  it.each([
    ['exhausted', { A: [RATE_LIMITED], B: [RATE_LIMITED] }, 'exhausted'],
    ['stopped', { A: [{ fail: 'invalid_request' as const, status: 400 }], B: [OK] }, 'stopped'],
  ])('records the terminal reason %s on the request line', async (_name, models, reason) => {
    const h = createRouterHarness({ models, tiers: tiersOf([['A'], ['B']]) });
    await h.route();
    expect(h.requestLines().map((l) => l.reason)).toEqual([reason]);
  });

  it('reconciles: attempt lines = attempts reported = upstream calls, and usage adds up', async () => {
    const h = createRouterHarness({
      models: {
        A: [RATE_LIMITED, OK],
        B: [{ ok: true, tokens: [7, 3] }],
        C: [{ ok: true, tokens: [11, 13] }],
      },
      tiers: tiersOf([['A', 'B'], ['C']]),
    });
    let reported = 0;
    for (let i = 0; i < 20; i++) reported += (await h.route()).attempts.length;
    const calls = h.calls('A') + h.calls('B') + h.calls('C');
    expect(h.attemptLines()).toHaveLength(reported);
    expect(calls).toBe(reported);
    const sum = (f: (l: { usage?: { inputTokens: number } }) => number) =>
      h.attemptLines().reduce((s, l) => s + f(l), 0);
    const requestInput = h.requestLines().reduce((s, l) => s + l.usage.inputTokens, 0);
    expect(sum((l) => l.usage?.inputTokens ?? 0)).toBe(requestInput);
  });
});
