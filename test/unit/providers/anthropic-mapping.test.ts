import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../lambda/core/chat/chat-model.js';
import { ProviderError } from '../../../lambda/core/failures/provider-error.js';
import {
  toAnthropicCountParams,
  toAnthropicParams,
  toAnthropicToolChoice,
} from '../../../lambda/families/anthropic/anthropic-request.js';
import {
  createAnthropicStreamMapper,
  mapAnthropicMessage,
  mapAnthropicStopReason,
  mapAnthropicTokenCount,
  mapAnthropicUsage,
} from '../../../lambda/families/anthropic/anthropic-response.js';

const subject = { provider: 'anthropic', model: 'claude-fast' };

describe('anthropic request mapping', () => {
  it('always sends max_tokens: the request’s own, else the default', () => {
    const request: ChatRequest = { messages: [{ role: 'user', content: 'hi' }] };
    expect(toAnthropicParams(request, 'claude-x', 512, subject).max_tokens).toBe(512);
    expect(toAnthropicParams({ ...request, maxTokens: 7 }, 'claude-x', 512, subject).max_tokens).toBe(7);
  });

  it('drops empty text and empty system messages, which the API rejects', () => {
    const params = toAnthropicParams(
      {
        messages: [
          { role: 'system', content: '' },
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: '' },
          { role: 'user', content: 'again' },
        ],
      },
      'claude-x',
      512,
      subject,
    );
    expect(params.system).toBeUndefined();
    expect(params.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'text', text: 'again' },
        ],
      },
    ]);
  });

  it('answers parallel tool calls with their results in one user turn', () => {
    const params = toAnthropicParams(
      {
        messages: [
          { role: 'user', content: 'both' },
          {
            role: 'assistant',
            content: 'Looking.',
            toolCalls: [
              { id: 't1', name: 'a', arguments: '{"x":1}' },
              { id: 't2', name: 'b', arguments: '' },
            ],
          },
          { role: 'tool', toolCallId: 't1', content: 'one' },
          { role: 'tool', toolCallId: 't2', content: 'two' },
        ],
      },
      'claude-x',
      512,
      subject,
    );
    expect(params.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 't1', name: 'a', input: { x: 1 } },
          { type: 'tool_use', id: 't2', name: 'b', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: 'one' },
          { type: 'tool_result', tool_use_id: 't2', content: 'two' },
        ],
      },
    ]);
  });

  it('leaves tool_choice out without tools, and gives a parameterless tool an empty object schema', () => {
    const noTools = toAnthropicParams(
      { messages: [{ role: 'user', content: 'hi' }], toolChoice: 'auto' },
      'claude-x',
      512,
      subject,
    );
    expect(noTools.tool_choice).toBeUndefined();
    const bare = toAnthropicParams(
      { messages: [{ role: 'user', content: 'hi' }], tools: [{ name: 'now' }] },
      'claude-x',
      512,
      subject,
    );
    expect(bare.tools).toEqual([{ name: 'now', input_schema: { type: 'object', properties: {} } }]);
  });

  it.each([
    ['auto', { type: 'auto' }],
    ['none', { type: 'none' }],
    ['required', { type: 'any' }],
    [{ name: 'lookup' }, { type: 'tool', name: 'lookup' }],
  ] as const)('maps tool choice %j to %j', (choice, expected) => {
    expect(toAnthropicToolChoice(choice)).toEqual(expected);
  });
});

describe('anthropic response mapping', () => {
  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
    ['pause_turn', 'other'],
    [null, 'other'],
  ])('maps stop_reason %j to %s', (reason, expected) => {
    expect(mapAnthropicStopReason(reason)).toBe(expected);
  });

  it.each([
    [
      { input_tokens: 7, output_tokens: 3 },
      { inputTokens: 7, outputTokens: 3 },
    ],
    [
      { input_tokens: 7, output_tokens: 3, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 },
      { inputTokens: 127, outputTokens: 3, cacheReadTokens: 100, cacheWriteTokens: 20 },
    ],
    [
      { input_tokens: 7, output_tokens: 3, cache_read_input_tokens: null, cache_creation_input_tokens: null },
      { inputTokens: 7, outputTokens: 3 },
    ],
    [{ output_tokens: 3 }, undefined],
    ['nope', undefined],
  ])('maps usage %j to %j', (usage, expected) => {
    expect(mapAnthropicUsage(usage)).toEqual(expected);
  });

  it('takes the input counts of message_start when a message_delta carries only output', () => {
    const start = mapAnthropicUsage({ input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 5 });
    expect(mapAnthropicUsage({ output_tokens: 42 }, start)).toEqual({
      inputTokens: 15,
      outputTokens: 42,
      cacheReadTokens: 5,
    });
  });

  it('joins text blocks, maps tool_use blocks, and keeps thinking as reasoning', () => {
    const result = mapAnthropicMessage(
      {
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 's' },
          { type: 'text', text: 'Let me ' },
          { type: 'text', text: 'look.' },
          { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'x' } },
        ],
        stop_reason: 'tool_use',
        usage: { input_tokens: 1, output_tokens: 2 },
      },
      subject,
    );
    expect(result).toEqual({
      content: 'Let me look.',
      toolCalls: [{ id: 'toolu_1', name: 'lookup', arguments: '{"q":"x"}' }],
      finishReason: 'tool_calls',
      usage: { inputTokens: 1, outputTokens: 2 },
      reasoning: [{ type: 'thinking', text: 'hmm', signature: 's' }],
    });
  });

  it.each([
    ['a body without content', { type: 'message' }],
    ['a tool_use block without an id', { content: [{ type: 'tool_use', name: 'x', input: {} }] }],
  ])('throws malformed_response for %s', (_label, body) => {
    expect(() => mapAnthropicMessage(body, subject)).toThrow(
      expect.objectContaining({ failureClass: 'malformed_response' }),
    );
  });
});

describe('anthropic stream mapping', () => {
  const run = (events: unknown[]) => {
    const mapper = createAnthropicStreamMapper(subject);
    const out = events.flatMap((e) => mapper.push(e));
    return { out, end: () => mapper.end() };
  };

  it('numbers tool calls in block order, after the reasoning and text blocks', () => {
    const { out, end } = run([
      { type: 'message_start', message: { usage: { input_tokens: 9, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Hi' } },
      {
        type: 'content_block_start',
        index: 2,
        content_block: { type: 'tool_use', id: 'a', name: 'f', input: {} },
      },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"x"' } },
      {
        type: 'content_block_start',
        index: 3,
        content_block: { type: 'tool_use', id: 'b', name: 'g', input: {} },
      },
      { type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '{}' } },
      { type: 'ping' },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 12 } },
      { type: 'message_stop' },
    ]);
    expect(out).toEqual([
      { type: 'reasoning', text: 'hmm' },
      { type: 'text', text: 'Hi' },
      { type: 'tool_call', index: 0, id: 'a', name: 'f' },
      { type: 'tool_call', index: 0, argumentsDelta: '{"x"' },
      { type: 'tool_call', index: 1, id: 'b', name: 'g' },
      { type: 'tool_call', index: 1, argumentsDelta: '{}' },
    ]);
    expect(end()).toEqual({
      type: 'finish',
      finishReason: 'tool_calls',
      usage: { inputTokens: 9, outputTokens: 12 },
    });
  });

  it('treats a stream without message_stop as malformed, the answer may be cut', () => {
    const { end } = run([
      { type: 'message_start', message: { usage: { input_tokens: 1, output_tokens: 1 } } },
    ]);
    expect(end).toThrow(ProviderError);
    expect(end).toThrow(/without message_stop/);
  });

  it('refuses an event that is not an object', () => {
    expect(() => run(['oops'])).toThrow(expect.objectContaining({ failureClass: 'malformed_response' }));
  });
});

describe('anthropic count_tokens mapping', () => {
  it('sends the input of a Messages body and none of its output settings', () => {
    const params = toAnthropicCountParams(
      {
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'hi' },
        ],
        maxTokens: 50,
        stop: ['x'],
        tools: [{ name: 'lookup' }],
        toolChoice: 'required',
      },
      'claude-x',
      subject,
    );
    expect(params).toEqual({
      model: 'claude-x',
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ name: 'lookup', input_schema: { type: 'object', properties: {} } }],
      tool_choice: { type: 'any' },
    });
  });

  it('reads input_tokens, and anything but a whole number of tokens as malformed', () => {
    expect(mapAnthropicTokenCount({ input_tokens: 0 }, subject)).toBe(0);
    expect(mapAnthropicTokenCount({ input_tokens: 17 }, subject)).toBe(17);
    for (const body of [{}, { input_tokens: -1 }, { input_tokens: 1.5 }, { input_tokens: '3' }, null]) {
      expect(() => mapAnthropicTokenCount(body, subject)).toThrow(ProviderError);
    }
  });
});
