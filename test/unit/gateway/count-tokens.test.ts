import { describe, expect, it } from 'vitest';
import type { CallOptions, ChatModel, ChatRequest } from '../../../lambda/core/chat/chat-model.js';
import { countTokens, estimateInputTokens } from '../../../lambda/core/gateway/count-tokens.js';
import type { Target } from '../../../lambda/core/gateway/target.js';
import type { RouteModel } from '../../../lambda/core/router/route-types.js';
import { createFakeClock } from '../../helpers/fake-clock.js';

const CHAT: ChatRequest = { messages: [{ role: 'user', content: 'hi' }] };
const TIMEOUTS = { connectMs: 100, firstByteMs: 1_000, totalMs: 2_000, idleMs: 1_000 };
const target = (...tiers: string[][]) =>
  ({
    tiers: tiers.map((keys) => ({ members: keys.map((key) => ({ key, weight: 1 })) })),
  }) as unknown as Target;

/** A route whose model counts with `count` (or cannot count at all). */
function route(key: string, count?: (options: CallOptions) => Promise<number>): RouteModel {
  const model: ChatModel = {
    key,
    provider: 'p',
    generate: () => Promise.reject(new Error('not called')),
    stream: () => {
      throw new Error('not called');
    },
    ...(count ? { countTokens: (_request: ChatRequest, options: CallOptions) => count(options) } : {}),
  };
  return { model, timeouts: TIMEOUTS };
}

function setup(routes: Record<string, RouteModel>) {
  const clock = createFakeClock();
  const routesOf = (key: string) => {
    // Only ever asked about a model key of the chain.
    if (typeof key !== 'string') throw new TypeError(`routesOf(${String(key)})`);
    return routes[key] ? [routes[key]] : [];
  };
  const deps = { routesOf, clock, sleep: clock.sleep };
  return { clock, deps };
}

const INPUT = { inputChars: 9, charsPerToken: 4 };

describe('counting input tokens', () => {
  it('estimates ceil(chars / charsPerToken): exactly at a multiple, and one more past it', () => {
    expect(estimateInputTokens(8, 4)).toBe(2);
    expect(estimateInputTokens(9, 4)).toBe(3);
    expect(estimateInputTokens(0, 4)).toBe(0);
  });

  it('asks the first member of the first tier when its route can count', async () => {
    const asked: string[] = [];
    const counting = (key: string) =>
      route(key, async () => {
        asked.push(key);
        return 42;
      });
    const { deps } = setup({ a: counting('a'), b: counting('b'), c: counting('c') });
    expect(await countTokens(deps, target(['a', 'b'], ['c']), CHAT, INPUT)).toEqual({
      inputTokens: 42,
      source: 'upstream',
      model: 'a',
    });
    expect(asked).toEqual(['a']);
  });

  it('estimates when the first route cannot count, even if a later one could', async () => {
    const { deps } = setup({ a: route('a'), b: route('b', async () => 42) });
    expect(await countTokens(deps, target(['a'], ['b']), CHAT, INPUT)).toEqual({
      inputTokens: 3,
      source: 'estimate',
    });
  });

  it('estimates when the count fails', async () => {
    const { deps } = setup({ a: route('a', () => Promise.reject(new Error('boom'))) });
    expect(await countTokens(deps, target(['a']), CHAT, INPUT)).toMatchObject({
      source: 'estimate',
      inputTokens: 3,
    });
  });

  it('estimates when the count takes longer than the route’s first-byte limit', async () => {
    let signal: AbortSignal | undefined;
    const { clock, deps } = setup({
      a: route('a', (options) => {
        signal = options.signal;
        return new Promise<number>(() => {});
      }),
    });
    const counting = countTokens(deps, target(['a']), CHAT, INPUT);
    await Promise.resolve();
    clock.advance(TIMEOUTS.firstByteMs - 1);
    expect(signal?.aborted).toBe(false);
    clock.advance(1);
    expect(await counting).toMatchObject({ source: 'estimate' });
    expect(signal?.aborted).toBe(true);
  });

  it.each([
    ['no tier', target()],
    ['an empty first tier', target([], ['a'])],
  ])('estimates for a target with %s', async (_name, empty) => {
    const { deps } = setup({ a: route('a', async () => 42) });
    expect(await countTokens(deps, empty, CHAT, INPUT)).toMatchObject({ source: 'estimate' });
  });

  it('stops its timer once the count is in: the route’s signal never aborts afterwards', async () => {
    let signal: AbortSignal | undefined;
    const { clock, deps } = setup({
      a: route('a', async (options) => {
        signal = options.signal;
        return 7;
      }),
    });
    expect(await countTokens(deps, target(['a']), CHAT, INPUT)).toMatchObject({ inputTokens: 7 });
    clock.advance(TIMEOUTS.totalMs * 2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(signal?.aborted).toBe(false);
  });

  it('estimates for a target whose model has no route in this process', async () => {
    const { deps } = setup({});
    expect(await countTokens(deps, target(['ghost']), CHAT, INPUT)).toMatchObject({ source: 'estimate' });
  });
});
