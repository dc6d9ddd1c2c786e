import { describe, expect, it } from 'vitest';
import type { ChatModel, ChatRequest, ChatStreamEvent } from '../../../lambda/core/chat/chat-model.js';
import { ProviderError } from '../../../lambda/core/failures/provider-error.js';
import type { AttemptLedgerEntry, RequestLedgerEntry } from '../../../lambda/core/ledger/ledger-entry.js';
import { type CommittedStream, routeStream } from '../../../lambda/core/router/route-chat.js';
import type { RouteModel, RoutePolicy, RouteSuccess } from '../../../lambda/core/router/route-types.js';
import type { AfterOutputPolicy } from '../../../lambda/core/router/stream-continuation.js';
import { createRouterHarness, tiersOf } from '../../helpers/router-harness.js';
import { uniformTimeouts } from '../../helpers/uniform-timeouts.js';

/** A model whose streams follow `scripts`, one per call: text pieces, then a clean end or a failure. */
function streamModel(
  key: string,
  scripts: { text: string[]; fails?: boolean; refuses?: boolean; down?: boolean; hangs?: boolean }[],
) {
  const sent: ChatRequest[] = [];
  const model: ChatModel = {
    key,
    provider: 'fake',
    generate: () => Promise.reject(new Error('streams only')),
    async *stream(request, options): AsyncIterable<ChatStreamEvent> {
      const script = scripts[Math.min(sent.length, scripts.length - 1)] ?? { text: [] };
      sent.push(request);
      if (script.hangs)
        await new Promise((_, reject) =>
          options.signal.addEventListener('abort', () => reject(options.signal.reason), { once: true }),
        );
      if (script.down)
        throw new ProviderError({
          provider: 'fake',
          model: key,
          failureClass: 'unavailable',
          status: 503,
          message: 'down',
        });
      if (script.refuses)
        throw new ProviderError({
          provider: 'fake',
          model: key,
          failureClass: 'invalid_request',
          status: 400,
          message: 'no',
        });
      for (const text of script.text) yield { type: 'text', text };
      if (script.fails)
        throw new ProviderError({ provider: 'fake', model: key, failureClass: 'network', message: 'cut' });
      yield { type: 'finish', finishReason: 'stop', usage: { inputTokens: 10, outputTokens: 3 } };
    },
  };
  return { model, sent };
}

type Models = Record<string, { model: ChatModel; sent: ChatRequest[]; prefill: boolean }>;

function setup(
  models: Models,
  tiers: string[][],
  afterOutput: AfterOutputPolicy,
  policy: Partial<RoutePolicy> = {},
  extra: { routes?: Record<string, string[]>; signal?: AbortSignal } = {},
) {
  const h = createRouterHarness({ models: {}, tiers: tiersOf(tiers), routes: extra.routes });
  const routes = (key: string): RouteModel | undefined => {
    const m = models[key];
    return (
      m && {
        model: m.model,
        timeouts: uniformTimeouts(10_000),
        prefill: m.prefill,
        price: { inputPerMTok: 1, outputPerMTok: 2 },
      }
    );
  };
  const request = {
    requestId: 'r',
    pipeline: 'p',
    tiers: tiersOf(tiers),
    policy: {
      maxAttempts: 3,
      deadlineMs: 15_000,
      fallbackOnContextLength: false,
      substitution: 'allow' as const,
      afterOutput,
      ...policy,
    },
    stream: true,
    signal: extra.signal,
  };
  const deps = { ...h.deps, models: routes };
  return {
    h,
    open: () => routeStream(request, deps, { messages: [{ role: 'user', content: 'hi' }] }),
  };
}

/** Reads the committed stream to its failure, as the SSE writer does; the text it carried. */
async function readToBreak(result: RouteSuccess<CommittedStream>) {
  let text = result.value.first.type === 'text' ? result.value.first.text : '';
  for (;;) {
    try {
      const next = await result.value.rest.next();
      if (next.done) return { text };
      if (next.value.type === 'text') text += next.value.text;
    } catch (error) {
      return { text, error: error as ProviderError };
    }
  }
}

const brokenAt = (text: string, error: ProviderError, toolCall = false) => ({
  error,
  usage: { inputTokens: 1, outputTokens: 2 },
  usageEstimated: true,
  text,
  toolCall,
});

describe('resuming a broken stream in the router', () => {
  it('continue-same-model: asks the same model with the text as the prefill, and labels the continuation', async () => {
    const a = {
      ...streamModel('a', [{ text: ['one', ' two'], fails: true }, { text: [' three'] }]),
      prefill: true,
    };
    const { h, open } = setup({ a }, [['a']], 'continue-same-model');
    const result = await open();
    if (!result.ok) throw new Error('no commit');
    const broke = await readToBreak(result);
    const next = await result.resume?.(brokenAt(broke.text, broke.error as ProviderError));
    expect(next?.continued).toEqual({ from: 'a', atToken: 2, by: 'a' });
    expect(a.sent[1]?.messages.at(-1)).toEqual({ role: 'assistant', content: 'one two' });
    expect(next?.value.first).toEqual({ type: 'text', text: ' three' });
    await next?.settle({ usage: { inputTokens: 10, outputTokens: 3 } });
    const [cut, continued] = h.attemptLines() as AttemptLedgerEntry[];
    expect(cut).toMatchObject({ outcome: 'network', phase: 'after_output', usageEstimated: true });
    expect(continued).toMatchObject({
      action: 'retry',
      continuation: { from: 'a', atToken: 2 },
      outcome: 'ok',
    });
    expect(h.requestLines()).toEqual([
      expect.objectContaining({ reason: 'success', model: 'a', route: 'a:cut@2,a:continued', attempts: 2 }),
    ]);
    expect((h.requestLines()[0] as RequestLedgerEntry).usage).toEqual({ inputTokens: 11, outputTokens: 5 });
  });

  it('never calls a route that takes no prefill, and ends partial with the original failure', async () => {
    const a = {
      ...streamModel('a', [
        { text: ['one'], fails: true },
        { text: [], refuses: true },
      ]),
      prefill: true,
    };
    const b = { ...streamModel('b', [{ text: ['x'] }]), prefill: false };
    const { h, open } = setup({ a, b }, [['a'], ['b']], 'continue');
    const result = await open();
    if (!result.ok) throw new Error('no commit');
    const broke = await readToBreak(result);
    // a refuses the prefill (a 400): the continuation ends there, b is never asked.
    expect(await result.resume?.(brokenAt(broke.text, broke.error as ProviderError))).toBeUndefined();
    expect(a.sent).toHaveLength(2);
    expect(b.sent).toHaveLength(0);
    expect(h.requestLines()).toEqual([
      expect.objectContaining({
        reason: 'partial',
        failureClass: 'network',
        route: 'a:cut@2,!b:prefill,a:400',
      }),
    ]);
  });

  it('does not continue a stream that sent a tool call', async () => {
    const a = { ...streamModel('a', [{ text: ['one'], fails: true }]), prefill: true };
    const { h, open } = setup({ a }, [['a']], 'continue-same-model');
    const result = await open();
    if (!result.ok) throw new Error('no commit');
    const broke = await readToBreak(result);
    expect(await result.resume?.(brokenAt(broke.text, broke.error as ProviderError, true))).toBeUndefined();
    expect(a.sent).toHaveLength(1);
    expect(h.requestLines()).toEqual([expect.objectContaining({ reason: 'partial', route: 'a:network' })]);
  });

  it('stops at the attempt budget: the broken attempt counts', async () => {
    const a = { ...streamModel('a', [{ text: ['one'], fails: true }, { text: [' two'] }]), prefill: true };
    const { h, open } = setup({ a }, [['a']], 'continue-same-model', { maxAttempts: 1 });
    const result = await open();
    if (!result.ok) throw new Error('no commit');
    const broke = await readToBreak(result);
    expect(await result.resume?.(brokenAt(broke.text, broke.error as ProviderError))).toBeUndefined();
    expect(a.sent).toHaveLength(1);
    expect((h.requestLines()[0] as RequestLedgerEntry).route).toBe('a:cut@2');
  });

  it('offers no resume under the error policy', async () => {
    const a = { ...streamModel('a', [{ text: ['one'] }]), prefill: true };
    const { open } = setup({ a }, [['a']], 'error');
    const result = await open();
    expect(result.ok && result.resume).toBeUndefined();
  });

  it('tries the model’s other route first (a `route` step), then a later model (`substitute`, its own tier)', async () => {
    const a = {
      ...streamModel('a', [
        { text: ['one'], fails: true },
        { text: [], down: true },
      ]),
      prefill: true,
    };
    const aEu = { ...streamModel('a~eu', [{ text: [], down: true }]), prefill: true };
    const b = { ...streamModel('b', [{ text: [' two'] }]), prefill: true };
    // a~eu is down (503 before output) and a breaks again: b continues.
    const { h, open } = setup(
      { a, 'a~eu': aEu, b },
      [['a'], ['b']],
      'continue',
      { maxAttempts: 4 },
      {
        routes: { a: ['a', 'a~eu'] },
      },
    );
    const result = await open();
    if (!result.ok) throw new Error('no commit');
    const broke = await readToBreak(result);
    const next = await result.resume?.(brokenAt(broke.text, broke.error as ProviderError));
    expect(next?.continued).toEqual({ from: 'a', atToken: 2, by: 'b' });
    const lines = h.attemptLines();
    expect(lines.map((l) => [l.attempt, l.phase])).toEqual([
      [1, 'after_output'],
      [2, 'before_output'],
      [3, 'before_output'],
    ]);
    expect(lines.map((l) => [l.model, l.provider, l.action, l.step, l.tier, l.outcome])).toEqual([
      ['a', 'fake', 'first', undefined, 1, 'network'],
      ['a', 'fake', 'fallback', 'route', 1, 'unavailable'],
      ['a', 'fake', 'retry', 'retry', 1, 'unavailable'],
    ]);
    await next?.settle({ usage: { inputTokens: 1, outputTokens: 1 } });
    const last = h.attemptLines().at(-1);
    expect([last?.model, last?.action, last?.step, last?.tier, last?.outcome]).toEqual([
      'b',
      'fallback',
      'substitute',
      2,
      'ok',
    ]);
    expect((h.requestLines()[0] as RequestLedgerEntry).route).toBe('a:cut@2,a~eu:503,a:503,b:continued');
    expect(next?.model).toBe('b');
    expect(result.route).toBe('a:200');
  });

  it('passes over a route whose breaker is open, without calling it', async () => {
    const a = { ...streamModel('a', [{ text: ['one'], fails: true }]), prefill: true };
    const b = { ...streamModel('b', [{ text: [' two'] }]), prefill: true };
    const { h, open } = setup({ a, b }, [['a'], ['b']], 'continue');
    const result = await open();
    if (!result.ok) throw new Error('no commit');
    const broke = await readToBreak(result);
    for (let i = 0; i < 2; i++)
      await h.breakers.record('p', 'a', { at: h.clock.now(), outcome: 'rate_limited' });
    const next = await result.resume?.(brokenAt(broke.text, broke.error as ProviderError));
    expect(next?.continued?.by).toBe('b');
    expect(a.sent).toHaveLength(1);
  });

  it('starts nothing once the deadline has passed, or the caller has gone', async () => {
    const a = { ...streamModel('a', [{ text: ['one'], fails: true }, { text: [' two'] }]), prefill: true };
    const late = setup({ a }, [['a']], 'continue-same-model', { deadlineMs: 1_000 });
    const result = await late.open();
    if (!result.ok) throw new Error('no commit');
    const broke = await readToBreak(result);
    late.h.clock.advance(1_000);
    expect(await result.resume?.(brokenAt(broke.text, broke.error as ProviderError))).toBeUndefined();
    expect(a.sent).toHaveLength(1);

    const caller = new AbortController();
    const b = { ...streamModel('b', [{ text: ['one'], fails: true }, { text: [' two'] }]), prefill: true };
    const gone = setup({ b }, [['b']], 'continue-same-model', {}, { signal: caller.signal });
    const other = await gone.open();
    if (!other.ok) throw new Error('no commit');
    const cut = await readToBreak(other);
    caller.abort();
    expect(await other.resume?.(brokenAt(cut.text, cut.error as ProviderError))).toBeUndefined();
    expect(b.sent).toHaveLength(1);
  });

  it('continues a continuation that breaks again, counting the tokens of both', async () => {
    const a = {
      ...streamModel('a', [
        { text: ['one'], fails: true },
        { text: [' two'], fails: true },
        { text: [' three'] },
      ]),
      prefill: true,
    };
    const { h, open } = setup({ a }, [['a']], 'continue-same-model');
    const result = await open();
    if (!result.ok) throw new Error('no commit');
    const first = await readToBreak(result);
    const second = await result.resume?.(brokenAt(first.text, first.error as ProviderError));
    if (!second) throw new Error('not continued');
    const again = await readToBreak(second);
    const third = await second.resume?.(brokenAt(`one${again.text}`, again.error as ProviderError));
    expect(third?.continued).toEqual({ from: 'a', atToken: 4, by: 'a' });
    expect(a.sent[2]?.messages.at(-1)).toEqual({ role: 'assistant', content: 'one two' });
    await third?.settle({ usage: { inputTokens: 1, outputTokens: 1 } });
    expect((h.requestLines()[0] as RequestLedgerEntry).route).toBe('a:cut@2,a:cut@4,a:continued');
  });

  it('settles once: a second settle or a resume after it writes nothing', async () => {
    const a = { ...streamModel('a', [{ text: ['one'] }]), prefill: true };
    const { h, open } = setup({ a }, [['a']], 'continue-same-model');
    const result = await open();
    if (!result.ok) throw new Error('no commit');
    await result.settle({ usage: { inputTokens: 1, outputTokens: 1 } });
    await result.settle({ usage: { inputTokens: 1, outputTokens: 1 } });
    const error = new ProviderError({ provider: 'fake', model: 'a', failureClass: 'network', message: 'x' });
    expect(await result.resume?.(brokenAt('one', error))).toBeUndefined();
    expect(h.ledger).toHaveLength(2);
  });

  it('a refusal ends the continuation: no later route is asked', async () => {
    const a = {
      ...streamModel('a', [
        { text: ['one'], fails: true },
        { text: [], refuses: true },
      ]),
      prefill: true,
    };
    const b = { ...streamModel('b', [{ text: [' two'] }]), prefill: true };
    const { open } = setup({ a, b }, [['a'], ['b']], 'continue');
    const result = await open();
    if (!result.ok) throw new Error('no commit');
    const broke = await readToBreak(result);
    expect(await result.resume?.(brokenAt(broke.text, broke.error as ProviderError))).toBeUndefined();
    expect(b.sent).toHaveLength(0);
  });

  it('each continuation attempt spends from the budget', async () => {
    const a = {
      ...streamModel('a', [
        { text: ['one'], fails: true },
        { text: [], down: true },
      ]),
      prefill: true,
    };
    const b = { ...streamModel('b', [{ text: [' two'] }]), prefill: true };
    const { open } = setup({ a, b }, [['a'], ['b']], 'continue', { maxAttempts: 2 });
    const result = await open();
    if (!result.ok) throw new Error('no commit');
    const broke = await readToBreak(result);
    expect(await result.resume?.(brokenAt(broke.text, broke.error as ProviderError))).toBeUndefined();
    expect(a.sent).toHaveLength(2);
    expect(b.sent).toHaveLength(0);
  });

  it('passes over a route cooling after a Retry-After', async () => {
    const a = { ...streamModel('a', [{ text: ['one'], fails: true }]), prefill: true };
    const b = { ...streamModel('b', [{ text: [' two'] }]), prefill: true };
    const { h, open } = setup({ a, b }, [['a'], ['b']], 'continue');
    const result = await open();
    if (!result.ok) throw new Error('no commit');
    const broke = await readToBreak(result);
    await h.breakers.record('p', 'a', { at: h.clock.now(), outcome: 'rate_limited', retryAfterMs: 5_000 });
    const next = await result.resume?.(brokenAt(broke.text, broke.error as ProviderError));
    expect(next?.continued?.by).toBe('b');
    expect(a.sent).toHaveLength(1);
  });

  it('gives a continuation attempt only the time left before the deadline', async () => {
    const a = {
      ...streamModel('a', [
        { text: ['one'], fails: true },
        { text: [], hangs: true },
      ]),
      prefill: true,
    };
    const { h, open } = setup({ a }, [['a']], 'continue-same-model', { deadlineMs: 1_000 });
    const result = await open();
    if (!result.ok) throw new Error('no commit');
    const broke = await readToBreak(result);
    h.clock.advance(400);
    const pending = result.resume?.(brokenAt(broke.text, broke.error as ProviderError));
    await new Promise((r) => setImmediate(r));
    h.clock.advance(600);
    expect(await pending).toBeUndefined();
    expect(h.attemptLines().at(-1)).toMatchObject({ outcome: 'timeout', timeoutPhase: 'first_byte' });
  });

  it('a committed stream settled with an error ends partial', async () => {
    const a = { ...streamModel('a', [{ text: ['one'] }]), prefill: true };
    const { h, open } = setup({ a }, [['a']], 'error');
    const result = await open();
    if (!result.ok) throw new Error('no commit');
    const error = new ProviderError({ provider: 'fake', model: 'a', failureClass: 'network', message: 'x' });
    await result.settle({ error, usage: { inputTokens: 1, outputTokens: 1 }, usageEstimated: true });
    expect(h.requestLines()[0]).toMatchObject({ reason: 'partial', route: 'a:network' });
    expect(h.attemptLines()[0]?.usageEstimated).toBe(true);
  });
});
