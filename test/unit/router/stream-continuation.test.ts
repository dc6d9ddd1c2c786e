import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../lambda/core/chat/chat-model.js';
import type { Tier } from '../../../lambda/core/dsl/types.js';
import {
  continuationRoutes,
  prefilled,
  refuseContinuation,
} from '../../../lambda/core/router/stream-continuation.js';

const text = { text: 'one two', toolCall: false };

describe('whether a broken stream may be continued', () => {
  it.each([
    ['network', undefined],
    ['timeout', undefined],
    ['malformed_response', undefined],
    ['unavailable', undefined],
    ['rate_limited', undefined],
    ['cancelled', 'failure_class'],
    ['content_policy', 'failure_class'],
    ['schema_invalid', 'failure_class'],
    ['invalid_request', 'failure_class'],
  ] as const)('after %s: %s', (failure, refusal) => {
    expect(refuseContinuation('continue-same-model', failure, text)).toBe(refusal);
  });

  it('never under the error policy', () => {
    expect(refuseContinuation('error', 'network', text)).toBe('policy');
  });

  it('never once a tool call went out', () => {
    expect(refuseContinuation('continue', 'network', { text: '', toolCall: true })).toBe('tool_call');
  });

  it('never when the request asked for reasoning (a prefill with thinking on is refused)', () => {
    expect(refuseContinuation('continue', 'network', text, ['reasoning'])).toBe('reasoning');
    expect(
      refuseContinuation('continue-same-model', 'timeout', text, ['tools', 'reasoning', 'prefill']),
    ).toBe('reasoning');
    expect(refuseContinuation('continue', 'network', text, ['tools', 'prefill'])).toBeUndefined();
    // The policy and a tool call in flight are said first.
    expect(refuseContinuation('error', 'network', text, ['reasoning'])).toBe('policy');
    expect(refuseContinuation('continue', 'network', { text: '', toolCall: true }, ['reasoning'])).toBe(
      'tool_call',
    );
  });
});

const tier = (...keys: string[]): Tier => ({ members: keys.map((key) => ({ key, weight: 1 })) });
const ROUTES: Record<string, string[]> = { a: ['a', 'a~eu'], b: ['b'], c: ['c'], d: ['d'] };
const catalog = (noPrefill: string[] = []) => ({
  routesOf: (model: string) => ROUTES[model] ?? [model],
  takesPrefill: (route: string) => !noPrefill.includes(route),
});

describe('which routes continue a broken stream', () => {
  const tiers = [tier('d'), tier('a', 'b'), tier('c')];

  it('continue-same-model: the model’s other routes first, then the route that broke', () => {
    expect(continuationRoutes('continue-same-model', tiers, { model: 'a', route: 'a' }, catalog())).toEqual({
      routes: [
        { model: 'a', route: 'a~eu' },
        { model: 'a', route: 'a' },
      ],
      noPrefill: [],
    });
  });

  it('continue: then the other models from the same tier on, never an earlier tier', () => {
    expect(continuationRoutes('continue', tiers, { model: 'a', route: 'a~eu' }, catalog())).toEqual({
      routes: [
        { model: 'a', route: 'a' },
        { model: 'a', route: 'a~eu' },
        { model: 'b', route: 'b' },
        { model: 'c', route: 'c' },
      ],
      noPrefill: [],
    });
  });

  it('lists routes that take no prefill apart, never to be tried', () => {
    expect(continuationRoutes('continue', tiers, { model: 'a', route: 'a' }, catalog(['b', 'a~eu']))).toEqual(
      {
        routes: [
          { model: 'a', route: 'a' },
          { model: 'c', route: 'c' },
        ],
        noPrefill: ['a~eu', 'b'],
      },
    );
  });
});

describe('the continuation request', () => {
  const chat: ChatRequest = { messages: [{ role: 'user', content: 'hi' }], maxTokens: 10 };

  it('ends with the text so far as the assistant’s prefill, without trailing whitespace', () => {
    expect(prefilled(chat, 'one two \n').messages.at(-1)).toEqual({ role: 'assistant', content: 'one two' });
    expect(prefilled(chat, 'one two').maxTokens).toBe(10);
  });

  it('is the request as it was when no text went out', () => {
    expect(prefilled(chat, '  ')).toBe(chat);
  });
});
