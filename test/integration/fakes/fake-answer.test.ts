import { describe, expect, it } from 'vitest';
import {
  type AnswerInput,
  planAnswer,
  splitWords,
  tokensFor,
} from '../../../lambda/dev/fakes/fake-answer.js';

const BASE: AnswerInput = {
  model: 'm',
  fault: {},
  seq: 7,
  promptChars: 18,
  toolsOffered: false,
  toolIdPrefix: 'call_',
};

describe('fake answer', () => {
  it('answers "Hello from <model>." with tokens = ceil(chars / 4)', () => {
    const plan = planAnswer(BASE);
    expect(plan).toMatchObject({
      text: 'Hello from m.',
      finish: 'stop',
      promptTokens: 5,
      completionTokens: 4,
    });
    expect(plan.chunks).toEqual(['Hello', ' from', ' m.']);
  });

  it.each([
    [0, 0],
    [1, 1],
    [4, 1],
    [5, 2],
  ])('counts %i chars as %i tokens', (chars, tokens) => {
    expect(tokensFor(chars)).toBe(tokens);
  });

  it('applies stop sequences before the token limit', () => {
    const plan = planAnswer({
      ...BASE,
      fault: { text: 'one two three four' },
      stop: [' three'],
      maxTokens: 1,
    });
    expect(plan).toMatchObject({ text: 'one ', finish: 'length', completionTokens: 1 });
  });

  it('lets a scripted finish reason win', () => {
    expect(planAnswer({ ...BASE, fault: { finishReason: 'guardrail' } }).finish).toBe('guardrail');
  });

  it('makes a tool call only when tools were offered', () => {
    const fault = { toolCall: { name: 'f', arguments: { a: 1 } } };
    expect(planAnswer({ ...BASE, fault }).toolCall).toBeUndefined();
    const plan = planAnswer({ ...BASE, fault, toolsOffered: true });
    expect(plan.toolCall).toEqual({ id: 'call_fake_7', name: 'f', input: { a: 1 }, arguments: '{"a":1}' });
    expect(plan).toMatchObject({
      text: '',
      finish: 'tool_calls',
      completionTokens: tokensFor('f{"a":1}'.length),
    });
    expect(plan.chunks.join('')).toBe('{"a":1}');
  });

  it.each(['', 'a', ' a', 'a b  c ', 'Hello from gpt-4o-mini.'])(
    'splits %j into pieces that join back',
    (text) => {
      expect(splitWords(text).join('')).toBe(text);
    },
  );
});
