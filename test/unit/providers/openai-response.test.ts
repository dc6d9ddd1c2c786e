import { describe, expect, it } from 'vitest';
import type { ChatStreamEvent } from '../../../lambda/core/chat/chat-model.js';
import { ProviderError } from '../../../lambda/core/failures/provider-error.js';
import {
  createOpenAIStreamMapper,
  mapOpenAICompletion,
  mapOpenAIFinishReason,
  mapOpenAIUsage,
} from '../../../lambda/families/openai-compatible/openai-response.js';

const subject = { provider: 'openai', model: 'gpt-mini' };

function completion(message: object, extra: object = {}): object {
  return { choices: [{ index: 0, message, finish_reason: 'stop' }], ...extra };
}

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('openai response mapping', () => {
  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['tool_calls', 'tool_calls'],
    ['content_filter', 'content_filter'],
    ['function_call', 'tool_calls'],
    ['eos', 'other'],
    [null, 'other'],
    [undefined, 'other'],
  ])('maps finish_reason %j to %s', (reason, expected) => {
    expect(mapOpenAIFinishReason(reason)).toBe(expected);
  });

  it.each([
    [
      { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
      { inputTokens: 12, outputTokens: 3 },
    ],
    [
      { prompt_tokens: 0, completion_tokens: 0 },
      { inputTokens: 0, outputTokens: 0 },
    ],
    [{ prompt_tokens: 12 }, undefined],
    [{ prompt_tokens: -1, completion_tokens: 2 }, undefined],
    [null, undefined],
    [undefined, undefined],
  ])('maps usage %j', (usage, expected) => {
    expect(mapOpenAIUsage(usage)).toStrictEqual(expected);
  });

  it('maps content, finish reason and usage', () => {
    const body = completion(
      { role: 'assistant', content: 'Hello.' },
      { usage: { prompt_tokens: 5, completion_tokens: 2 } },
    );
    expect(mapOpenAICompletion(body, subject)).toStrictEqual({
      content: 'Hello.',
      toolCalls: [],
      finishReason: 'stop',
      usage: { inputTokens: 5, outputTokens: 2 },
    });
  });

  it('maps tool calls, synthesising a missing id and serialising object arguments', () => {
    const body = completion({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_a', type: 'function', function: { name: 'lookup', arguments: '{"q":1}' } },
        { type: 'function', function: { name: 'ping', arguments: { n: 2 } } },
      ],
    });
    const result = mapOpenAICompletion(body, subject);
    expect(result.content).toBeNull();
    expect(result.toolCalls).toStrictEqual([
      { id: 'call_a', name: 'lookup', arguments: '{"q":1}' },
      { id: 'call_1', name: 'ping', arguments: '{"n":2}' },
    ]);
  });

  it.each([
    ['a non-object body', 'plain text'],
    ['null choices', { choices: null }],
    ['empty choices', { choices: [] }],
    ['a choice without message', { choices: [{ index: 0, finish_reason: 'stop' }] }],
    ['tool_calls that is not an array', completion({ content: null, tool_calls: 'x' })],
    [
      'a tool call without a function name',
      completion({ content: null, tool_calls: [{ id: 'c', function: {} }] }),
    ],
  ])('rejects %s as malformed_response with the model key', (_name, body) => {
    const error = catchError(() => mapOpenAICompletion(body, subject));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      failureClass: 'malformed_response',
      provider: 'openai',
      model: 'gpt-mini',
    });
  });
});

describe('openai stream mapping', () => {
  const chunk = (delta: object, finish: string | null = null, usage: object | null = null) => ({
    choices: [{ index: 0, delta, finish_reason: finish }],
    usage,
  });

  it('yields text pieces and one finish with the usage of the trailing chunk', () => {
    const mapper = createOpenAIStreamMapper(subject);
    const events: ChatStreamEvent[] = [
      ...mapper.push(chunk({ role: 'assistant', content: '' })),
      ...mapper.push(chunk({ content: 'Hel' })),
      ...mapper.push(chunk({ content: 'lo' })),
      ...mapper.push(chunk({}, 'stop')),
      ...mapper.push({ choices: [], usage: { prompt_tokens: 4, completion_tokens: 2 } }),
      mapper.end(),
    ];
    expect(events).toStrictEqual([
      { type: 'text', text: 'Hel' },
      { type: 'text', text: 'lo' },
      { type: 'finish', finishReason: 'stop', usage: { inputTokens: 4, outputTokens: 2 } },
    ]);
  });

  it('yields tool call deltas by index', () => {
    const mapper = createOpenAIStreamMapper(subject);
    const events = [
      ...mapper.push(
        chunk({
          tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }],
        }),
      ),
      ...mapper.push(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] })),
      ...mapper.push(chunk({ tool_calls: [{ index: 1, id: 'call_2', function: { name: 'g' } }] })),
      ...mapper.push(chunk({}, 'tool_calls')),
      mapper.end(),
    ];
    expect(events).toStrictEqual([
      { type: 'tool_call', index: 0, id: 'call_1', name: 'f', argumentsDelta: '' },
      { type: 'tool_call', index: 0, id: undefined, name: undefined, argumentsDelta: '{"a":' },
      { type: 'tool_call', index: 1, id: 'call_2', name: 'g', argumentsDelta: undefined },
      { type: 'finish', finishReason: 'tool_calls', usage: undefined },
    ]);
  });

  it('tolerates a usage chunk without choices', () => {
    const mapper = createOpenAIStreamMapper(subject);
    mapper.push(chunk({}, 'stop'));
    expect(mapper.push({ usage: { prompt_tokens: 3, completion_tokens: 1 } })).toStrictEqual([]);
    expect(mapper.end()).toMatchObject({ usage: { inputTokens: 3, outputTokens: 1 } });
  });

  it('accepts usage in the same chunk as the finish reason', () => {
    const mapper = createOpenAIStreamMapper(subject);
    mapper.push(chunk({ content: 'x' }, 'length', { prompt_tokens: 1, completion_tokens: 1 }));
    expect(mapper.end()).toStrictEqual({
      type: 'finish',
      finishReason: 'length',
      usage: { inputTokens: 1, outputTokens: 1 },
    });
  });

  it('treats a stream that ends without a finish_reason as malformed_response', () => {
    const mapper = createOpenAIStreamMapper(subject);
    mapper.push(chunk({ content: 'partial' }));
    expect(catchError(() => mapper.end())).toMatchObject({
      failureClass: 'malformed_response',
      model: 'gpt-mini',
    });
  });

  it.each([
    ['a string', 'oops'],
    ['null', null],
    ['an array', []],
    ['an object whose choices is a string', { choices: 'oops' }],
  ])('rejects a chunk that is %s as malformed_response', (_name, value) => {
    const mapper = createOpenAIStreamMapper(subject);
    expect(catchError(() => mapper.push(value))).toMatchObject({ failureClass: 'malformed_response' });
  });
});
