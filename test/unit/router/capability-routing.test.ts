import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../lambda/core/chat/chat-model.js';
import type { AttemptLedgerEntry } from '../../../lambda/core/ledger/ledger-entry.js';
import { terminalError } from '../../../lambda/core/router/terminal-error.js';
import { createRouterHarness, tiersOf } from '../../helpers/router-harness.js';
import { OK, RATE_LIMITED, UNAVAILABLE } from '../../helpers/scripted-model.js';

const IMAGE: Partial<ChatRequest> = {
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'what is it?' },
        { type: 'image', source: { kind: 'data', mediaType: 'image/png', data: 'AA==' } },
      ],
    },
  ],
};
const IMAGE_AND_TOOLS: Partial<ChatRequest> = { ...IMAGE, tools: [{ name: 'look' }] };

describe('capability-aware routing', () => {
  it('skips a route that cannot carry the request and never calls it, showing why in the trail', async () => {
    const h = createRouterHarness({
      models: { A: [OK], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
      lacks: { A: ['images', 'tools'] },
    });
    const result = await h.route({ chat: IMAGE_AND_TOOLS });

    expect(result.ok && result.model).toBe('B');
    expect(result.route).toBe('!A:unsupported(images+tools),B:200');
    expect(h.calls('A')).toBe(0);
    expect(h.attemptLines()[0]?.skipped).toEqual([
      { route: 'A', reason: 'unsupported', missing: ['images', 'tools'] },
    ]);
    expect(h.requestLines()[0]).toMatchObject({
      reason: 'success',
      attempts: 1,
      unsupported: [{ route: 'A', reason: 'unsupported', missing: ['images', 'tools'] }],
    });
  });

  it('names only the capabilities the route lacks among those the request needs', async () => {
    const h = createRouterHarness({
      models: { A: [OK], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
      lacks: { A: ['images', 'logprobs'] },
    });
    const result = await h.route({ chat: IMAGE_AND_TOOLS });
    expect(result.route).toBe('!A:unsupported(images),B:200');
  });

  it('calls an incapable route as before when the request needs nothing it lacks', async () => {
    const h = createRouterHarness({
      models: { A: [OK], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
      lacks: { A: ['images'] },
    });
    const result = await h.route();
    expect(result.route).toBe('A:200');
    expect(h.requestLines()[0]).not.toHaveProperty('unsupported');
  });

  it('picks only capable members of a group, whatever the random draw', async () => {
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const h = createRouterHarness({
        models: { A: [OK], B: [OK] },
        tiers: tiersOf([['A', 'B']]),
        lacks: { A: ['images'] },
        seed,
      });
      const result = await h.route({ chat: IMAGE });
      expect(result.route).toBe('!A:unsupported(images),B:200');
    }
  });

  it('never fails open onto an incapable route: with the capable one failed, fail-open retries it alone', async () => {
    // One 429 opens B's breaker: every later selection finds no healthy route and fails open.
    const h = createRouterHarness({
      models: { A: [OK], B: [RATE_LIMITED] },
      tiers: tiersOf([['A', 'B']]),
      lacks: { A: ['images'] },
      breaker: { consecutive429: 1 },
    });
    const result = await h.route({ chat: IMAGE });
    expect(h.calls('A')).toBe(0);
    expect(result.ok).toBe(false);
    expect(result.route).toBe('!A:unsupported(images),B:429,B:429,B:429');
    expect(h.attemptLines().map((a) => a.action)).toEqual(['first', 'fail-open', 'fail-open']);
    expect(result.ok || result.reason).toBe('exhausted');
  });

  it('shows incapable routes of later tiers in the trail of an exhausted request', async () => {
    const h = createRouterHarness({
      models: { A: [UNAVAILABLE], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
      lacks: { B: ['images'] },
    });
    const result = await h.route({ chat: IMAGE });
    // Fail-open retries A (the one capable route); B is never tried, and the trail says why.
    expect(result.route).toBe('A:503,A:503,A:503,!B:unsupported(images)');
    expect(h.calls('B')).toBe(0);
    if (result.ok) throw new Error('expected a failure');
    expect(terminalError(result, 'p')).toMatchObject({ status: 503, code: 'all_routes_unavailable' });
  });

  it('answers 400 unsupported_capability naming the capabilities and every route when no route can carry it', async () => {
    const h = createRouterHarness({
      models: { A: [OK], B: [OK] },
      tiers: tiersOf([['A'], ['B']]),
      lacks: { A: ['images', 'tools'], B: ['images'] },
    });
    const result = await h.route({ chat: IMAGE_AND_TOOLS });
    if (result.ok) throw new Error('expected a failure');
    expect(result.route).toBe('!A:unsupported(images+tools),!B:unsupported(images)');
    expect(result.attempts).toEqual([]);
    expect(h.calls('A') + h.calls('B')).toBe(0);
    expect(terminalError(result, 'p')).toEqual({
      status: 400,
      type: 'invalid_request_error',
      code: 'unsupported_capability',
      message:
        "no route of pipeline 'p' can carry what this request needs (images+tools); routes: A: unsupported(images+tools), B: unsupported(images)",
    });
    expect(h.requestLines()[0]).toMatchObject({
      reason: 'exhausted',
      attempts: 0,
      route: '!A:unsupported(images+tools),!B:unsupported(images)',
      unsupported: [
        { route: 'A', reason: 'unsupported', missing: ['images', 'tools'] },
        { route: 'B', reason: 'unsupported', missing: ['images'] },
      ],
    });
  });

  it('skips an incapable further route of a model and takes its capable one (same-contract fallback)', async () => {
    const h = createRouterHarness({
      models: { A: [OK], 'A~b': [OK] },
      routes: { A: ['A', 'A~b'] },
      tiers: tiersOf([['A']]),
      lacks: { A: ['imageUrls'] },
    });
    const chat: Partial<ChatRequest> = {
      messages: [
        { role: 'user', content: [{ type: 'image', source: { kind: 'url', url: 'https://x.test/a.png' } }] },
      ],
    };
    const result = await h.route({ chat });
    expect(result.route).toBe('!A:unsupported(imageUrls),A~b:200');
    expect((h.attemptLines()[0] as AttemptLedgerEntry).model).toBe('A');
  });

  it('reports each skipped route once per request, however many attempts follow', async () => {
    const h = createRouterHarness({
      models: { A: [OK], B: [UNAVAILABLE], C: [UNAVAILABLE], D: [OK] },
      tiers: tiersOf([['A'], ['B'], ['C'], ['D']]),
      lacks: { A: ['images'] },
      policy: { maxAttempts: 3 },
    });
    const result = await h.route({ chat: IMAGE });
    expect(result.route).toBe('!A:unsupported(images),B:503,C:503,D:200');
  });
});

describe('the terminal error of a request no route could carry', () => {
  const skip = { route: 'a', reason: 'unsupported' as const, missing: ['images' as const] };

  it('is the 400 only when the chain was exhausted without an attempt', () => {
    const none = { ok: false as const, attempts: [], route: '!a:unsupported(images)', unsupported: [skip] };
    expect(terminalError({ ...none, reason: 'exhausted' }, 'p').status).toBe(400);
    expect(terminalError({ ...none, reason: 'deadline' }, 'p')).toMatchObject({ status: 504 });
    expect(terminalError({ ...none, reason: 'exhausted', unsupported: undefined }, 'p')).toMatchObject({
      status: 503,
      code: 'no_route',
    });
  });

  it('leaves unsupported off a failure that skipped nothing', async () => {
    const h = createRouterHarness({
      models: { A: [UNAVAILABLE] },
      tiers: tiersOf([['A']]),
      lacks: { A: ['images'] },
    });
    const result = await h.route();
    expect(result.ok).toBe(false);
    expect(result).not.toHaveProperty('unsupported');
    expect(h.requestLines()[0]).not.toHaveProperty('unsupported');
  });
});
