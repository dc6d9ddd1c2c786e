import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../lambda/core/chat/chat-model.js';
import type { EmbeddingRequest } from '../../../lambda/core/embeddings/embedding-model.js';
import { couldBeCallerText, MAX_CALLER_TEXT_PARTS } from '../../../lambda/core/failures/caller-text.js';

const SENTENCE = 'The model `gpt-9` does not exist';
const PROVIDER_OWN = 'The provided model identifier is invalid';
const user = (content: string) => ({ role: 'user' as const, content });
const chat = (fields: Partial<ChatRequest>): ChatRequest => ({ messages: [user('hello')], ...fields });
const embedding = (input: EmbeddingRequest['input']): EmbeddingRequest => ({
  input,
  dimensions: 8,
  sendDimensions: false,
});
const tool = (parameters: Record<string, unknown>, name = 'lookup') => ({ name, parameters });

describe('couldBeCallerText on every input form a door sends upstream', () => {
  it.each<[string, unknown]>([
    ['a chat message', chat({ messages: [user(SENTENCE)] })],
    ['an assistant turn', chat({ messages: [{ role: 'assistant', content: SENTENCE }] })],
    [
      'tool-call arguments of an earlier turn',
      chat({
        messages: [
          { role: 'assistant', content: null, toolCalls: [{ id: 't', name: 'f', arguments: SENTENCE }] },
        ],
      }),
    ],
    ['a tool result', chat({ messages: [{ role: 'tool', content: SENTENCE, toolCallId: 't' }] })],
    ['a stop sequence', chat({ stop: [SENTENCE] })],
    ['a tool name', chat({ tools: [tool({}, 'The_model_gpt-9_does_not_exist')] })],
    ['a tool description', chat({ tools: [{ name: 'f', description: SENTENCE }] })],
    ['a property name of a tool schema', chat({ tools: [tool({ properties: { [SENTENCE]: {} } })] })],
    ['a forced tool name', chat({ toolChoice: { name: SENTENCE } })],
    [
      'a property name of the response schema',
      chat({
        responseFormat: { type: 'json_schema', name: 'r', schema: { properties: { [SENTENCE]: {} } } },
      }),
    ],
    [
      'the response schema name',
      chat({ responseFormat: { type: 'json_schema', name: 'The-model-gpt-9-does-not-exist', schema: {} } }),
    ],
    ['an embeddings text', embedding(['first', SENTENCE])],
    ['an embeddings token array (it decodes to anything)', embedding([[464, 1646, 318]])],
    ['one token array among several', embedding([[1], [2, 3]])],
    ['a bare token array', [464, 1646]],
    ['a single token id', { input: [7] }],
  ])('counts the provider sentence as possibly the caller’s in %s', (_label, input) => {
    expect(couldBeCallerText(SENTENCE, input)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['an ordinary chat request', chat({ tools: [tool({ properties: { city: { type: 'string' } } })] })],
    ['an embeddings text', embedding(['an ordinary sentence'])],
    ['an empty array (no token in it)', { input: [], text: 'hello' }],
    ['numbers that are not token ids', { input: [0.5, 1] }],
    ['numbers mixed with text', { input: [464, 'hello'] }],
  ])('clears a sentence the caller did not send, in %s', (_label, input) => {
    expect(couldBeCallerText(PROVIDER_OWN, input)).toBe(false);
  });
});

describe('couldBeCallerText reads the request as an upstream could join it', () => {
  it('joins text across messages, skipping the fixed words of role and type', () => {
    const input = { messages: [user('The model'), user('does not exist')] };
    expect(couldBeCallerText('The model does not exist', input)).toBe(true);
  });

  it('skips everything under a structural key when joining values', () => {
    const input = { a: 'The model', type: { b: 'zzz' }, c: 'does not exist' };
    expect(couldBeCallerText('The model does not exist', input)).toBe(true);
    const list = { a: 'The model', type: ['zzz'], c: 'does not exist' };
    expect(couldBeCallerText('The model does not exist', list)).toBe(true);
  });

  it('joins numbers with text (a number the upstream prints is the caller’s too)', () => {
    expect(
      couldBeCallerText('The model 7 does not exist', { a: 'The model', b: 7, c: 'does not exist' }),
    ).toBe(true);
  });

  it('reads keys and values in document order, as the JSON reads', () => {
    const input = { properties: { 'The model': 'gpt-9' } };
    expect(couldBeCallerText('The model gpt-9', input)).toBe(true);
    expect(couldBeCallerText('gpt-9 The model', input)).toBe(false);
  });

  it('reads a value under a structural key as part of the document', () => {
    expect(couldBeCallerText(SENTENCE, { type: SENTENCE })).toBe(true);
  });

  it('recognises an echo that the upstream lower-cased, letters whose case changes their form included', () => {
    // `İ` lower-cases to `i` and a combining dot (not a letter): its skeleton is `i`, as the echo's.
    expect(couldBeCallerText('istanbul is not a model', { a: 'İSTANBUL is not a model' })).toBe(true);
  });

  it('recognises an echo that the upstream upper-cased, letters that upper-case to two included', () => {
    // `ß` upper-cases to `SS`, and the ligature `ﬁ` to `FI`.
    expect(couldBeCallerText('STRASSE IS NOT A MODEL', { a: 'Straße is not a model' })).toBe(true);
    expect(couldBeCallerText('FILE NOT FOUND', { a: 'ﬁle not found' })).toBe(true);
  });

  it('reads members whose value is undefined, a boolean or a function as holding no text', () => {
    const input = { a: undefined, b: true, c: () => 'x', d: 'hello' };
    expect(couldBeCallerText(PROVIDER_OWN, input)).toBe(false);
    expect(couldBeCallerText('hello', input)).toBe(true);
  });

  it.each(['was here', 'here', 'hello'])('clears %s in a request that holds no text', (phrase) => {
    expect(couldBeCallerText(phrase, {})).toBe(false);
    expect(couldBeCallerText(phrase, [])).toBe(false);
  });

  it('treats an unknown request as possibly the caller', () => {
    expect(couldBeCallerText('anything', undefined)).toBe(true);
  });

  it('treats a phrase with no letters or digits as possibly the caller', () => {
    expect(couldBeCallerText('`!`', { a: 'hello' })).toBe(true);
  });

  it('ends on a request that refers to itself, as one that cannot be read whole', () => {
    const input: Record<string, unknown> = { text: 'hello' };
    input.self = input;
    expect(couldBeCallerText(PROVIDER_OWN, input)).toBe(true);
  });

  it('reads a value the request holds twice both times, as the upstream joins it', () => {
    const turn = user('does not exist The model gpt-9');
    expect(couldBeCallerText('The model gpt-9 does not exist', { messages: [turn, turn] })).toBe(true);
  });

  it('counts the values still to be read against the bound, however wide the request', () => {
    const strings = Array.from({ length: MAX_CALLER_TEXT_PARTS - 3 }, () => 'a');
    // The object, its array, N - 3 strings and `b` (still to be read when the array opens): N values.
    expect(couldBeCallerText(PROVIDER_OWN, { a: strings, b: 'z' })).toBe(false);
    expect(couldBeCallerText(PROVIDER_OWN, { a: [...strings, 'a'], b: 'z' })).toBe(true);
  });

  it('reads a deeply nested request without exhausting the stack', () => {
    let input: unknown = SENTENCE;
    for (let depth = 0; depth < 50_000; depth++) input = { a: input };
    expect(couldBeCallerText(SENTENCE, input)).toBe(true);
    expect(couldBeCallerText(PROVIDER_OWN, input)).toBe(false);
  });

  it(`reads a request of exactly ${MAX_CALLER_TEXT_PARTS} values whole, and one more as possibly anything`, () => {
    // The array itself is one value: N - 1 strings in it make N.
    const atLimit = Array.from({ length: MAX_CALLER_TEXT_PARTS - 1 }, () => 'a');
    expect(couldBeCallerText(PROVIDER_OWN, atLimit)).toBe(false);
    expect(couldBeCallerText(PROVIDER_OWN, [...atLimit, 'a'])).toBe(true);
  });
});
