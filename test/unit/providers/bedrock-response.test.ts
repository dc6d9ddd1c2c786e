import type { ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import { describe, expect, it } from 'vitest';
import type { ChatStreamEvent } from '../../../lambda/core/chat/chat-model.js';
import { ProviderError } from '../../../lambda/core/failures/provider-error.js';
import {
  createBedrockStreamMapper,
  mapBedrockStopReason,
  mapBedrockUsage,
  mapConverseResponse,
} from '../../../lambda/families/bedrock/bedrock-response.js';

const subject = { provider: 'bedrock', model: 'llama-br' };

function response(content: unknown[], stopReason = 'end_turn'): unknown {
  return {
    output: { message: { role: 'assistant', content } },
    stopReason,
    usage: { inputTokens: 7, outputTokens: 3, totalTokens: 10 },
  };
}

describe('bedrock response mapping', () => {
  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
    ['content_filtered', 'content_filter'],
    ['guardrail_intervened', 'content_filter'],
    ['malformed_model_output', 'other'],
    [undefined, 'other'],
  ])('maps stopReason %j to %s', (reason, expected) => {
    expect(mapBedrockStopReason(reason)).toBe(expected);
  });

  it.each([
    [
      { inputTokens: 7, outputTokens: 3, totalTokens: 10 },
      { inputTokens: 7, outputTokens: 3 },
    ],
    [{ inputTokens: 7 }, undefined],
    [undefined, undefined],
  ])('maps usage %j', (usage, expected) => {
    expect(mapBedrockUsage(usage)).toStrictEqual(expected);
  });

  it('joins text blocks and maps usage', () => {
    expect(mapConverseResponse(response([{ text: 'Hel' }, { text: 'lo.' }]), subject)).toStrictEqual({
      content: 'Hello.',
      toolCalls: [],
      finishReason: 'stop',
      usage: { inputTokens: 7, outputTokens: 3 },
    });
  });

  it('maps toolUse blocks to tool calls with JSON text arguments, ignoring other blocks', () => {
    const result = mapConverseResponse(
      response(
        [
          { reasoningContent: { reasoningText: { text: 'hmm' } } },
          { toolUse: { toolUseId: 'tooluse_1', name: 'lookup', input: { q: 'x' } } },
          { toolUse: { toolUseId: 'tooluse_2', name: 'ping' } },
        ],
        'tool_use',
      ),
      subject,
    );
    expect(result).toMatchObject({ content: null, finishReason: 'tool_calls' });
    expect(result.toolCalls).toStrictEqual([
      { id: 'tooluse_1', name: 'lookup', arguments: '{"q":"x"}' },
      { id: 'tooluse_2', name: 'ping', arguments: '{}' },
    ]);
  });

  it.each([
    ['undefined', undefined],
    ['no output', { stopReason: 'end_turn' }],
    ['no message', { output: {} }],
    ['content that is not a list', { output: { message: { content: 'x' } } }],
    ['a toolUse without id', response([{ toolUse: { name: 'lookup', input: {} } }])],
  ])('rejects %s as malformed_response', (_name, body) => {
    const map = () => mapConverseResponse(body, subject);
    expect(map).toThrow(ProviderError);
    expect(map).toThrow(expect.objectContaining({ failureClass: 'malformed_response', model: 'llama-br' }));
  });
});

describe('bedrock stream mapping', () => {
  const events = (list: ConverseStreamOutput[]): ChatStreamEvent[] => {
    const mapper = createBedrockStreamMapper(subject);
    return [...list.flatMap((event) => mapper.push(event)), mapper.end()];
  };

  it('yields text deltas, then one finish carrying the usage that arrives after messageStop', () => {
    expect(
      events([
        { messageStart: { role: 'assistant' } },
        { contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'Hel' } } },
        { contentBlockDelta: { contentBlockIndex: 0, delta: { text: '' } } },
        { contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'lo' } } },
        { contentBlockStop: { contentBlockIndex: 0 } },
        { messageStop: { stopReason: 'max_tokens' } },
        {
          metadata: { usage: { inputTokens: 4, outputTokens: 2, totalTokens: 6 }, metrics: { latencyMs: 1 } },
        },
      ]),
    ).toStrictEqual([
      { type: 'text', text: 'Hel' },
      { type: 'text', text: 'lo' },
      { type: 'finish', finishReason: 'length', usage: { inputTokens: 4, outputTokens: 2 } },
    ]);
  });

  it('numbers tool calls in the order their blocks start and streams their input', () => {
    expect(
      events([
        { contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'Checking.' } } },
        {
          contentBlockStart: {
            contentBlockIndex: 1,
            start: { toolUse: { toolUseId: 't1', name: 'lookup' } },
          },
        },
        { contentBlockDelta: { contentBlockIndex: 1, delta: { toolUse: { input: '{"q":' } } } },
        {
          contentBlockStart: { contentBlockIndex: 2, start: { toolUse: { toolUseId: 't2', name: 'ping' } } },
        },
        { contentBlockDelta: { contentBlockIndex: 1, delta: { toolUse: { input: '"x"}' } } } },
        { messageStop: { stopReason: 'tool_use' } },
      ]),
    ).toStrictEqual([
      { type: 'text', text: 'Checking.' },
      { type: 'tool_call', index: 0, id: 't1', name: 'lookup' },
      { type: 'tool_call', index: 0, argumentsDelta: '{"q":' },
      { type: 'tool_call', index: 1, id: 't2', name: 'ping' },
      { type: 'tool_call', index: 0, argumentsDelta: '"x"}' },
      { type: 'finish', finishReason: 'tool_calls', usage: undefined },
    ]);
  });

  it('treats a stream without messageStop as malformed_response', () => {
    const mapper = createBedrockStreamMapper(subject);
    mapper.push({ contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'cut' } } });
    expect(() => mapper.end()).toThrow(expect.objectContaining({ failureClass: 'malformed_response' }));
  });

  it.each([
    ['throttlingException', 'ThrottlingException'],
    ['modelStreamErrorException', 'ModelStreamErrorException'],
    ['internalServerException', 'InternalServerException'],
    ['serviceUnavailableException', 'ServiceUnavailableException'],
    ['validationException', 'ValidationException'],
  ])('throws the %s member as an error named %s', (member, name) => {
    const mapper = createBedrockStreamMapper(subject);
    const event = { [member]: { message: 'boom' } } as unknown as ConverseStreamOutput;
    expect(() => mapper.push(event)).toThrow(expect.objectContaining({ name, message: 'boom' }));
  });

  it('rethrows an exception member that already is an Error', () => {
    const mapper = createBedrockStreamMapper(subject);
    const error = Object.assign(new Error('slow down'), { name: 'ThrottlingException' });
    const event = { throttlingException: error } as unknown as ConverseStreamOutput;
    expect(() => mapper.push(event)).toThrow(error);
  });
});
