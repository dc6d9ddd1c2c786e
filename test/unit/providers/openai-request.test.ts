import { describe, expect, it } from 'vitest';
import type { ChatMessage, ChatRequest, ToolChoice } from '../../../lambda/core/chat/chat-model.js';
import {
  isReasoningModelId,
  toOpenAIMessage,
  toOpenAIParams,
  toOpenAIStreamParams,
  toOpenAIToolChoice,
} from '../../../lambda/families/openai-compatible/openai-request.js';

const hello: ChatRequest = { messages: [{ role: 'user', content: 'hi' }] };

describe('openai request mapping', () => {
  it.each([
    ['o1', true],
    ['o1-mini', true],
    ['o3', true],
    ['o3-mini-2025-01-31', true],
    ['o4-mini', true],
    ['gpt-5', true],
    ['gpt-5-mini', true],
    ['gpt-5.1', true],
    ['gpt-4o', false],
    ['gpt-4o-mini', false],
    ['gpt-4.1', false],
    ['omni-moderation-latest', false],
    ['openai/o3', false],
    ['meta-llama/llama-3.3-70b-instruct', false],
    ['gemini-2.0-flash', false],
  ])('treats %s as a reasoning model: %s', (model, expected) => {
    expect(isReasoningModelId(model)).toBe(expected);
  });

  it.each([
    ['gpt-4o-mini', 'max_tokens'],
    ['gemini-2.0-flash', 'max_tokens'],
    ['o3-mini', 'max_completion_tokens'],
    ['gpt-5', 'max_completion_tokens'],
  ])('sends the output limit of %s as %s', (model, field) => {
    const params = toOpenAIParams({ ...hello, maxTokens: 64 }, model);
    expect(params).toMatchObject({ [field]: 64 });
    const other = field === 'max_tokens' ? 'max_completion_tokens' : 'max_tokens';
    expect(params).not.toHaveProperty(other);
  });

  it.each<[string, ChatMessage, unknown]>([
    ['system', { role: 'system', content: 'be brief' }, { role: 'system', content: 'be brief' }],
    ['user', { role: 'user', content: 'hi' }, { role: 'user', content: 'hi' }],
    ['assistant text', { role: 'assistant', content: 'hello' }, { role: 'assistant', content: 'hello' }],
    [
      'assistant tool calls',
      {
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"q":1}' }],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":1}' } }],
      },
    ],
    [
      'assistant with an empty tool call list',
      { role: 'assistant', content: 'x', toolCalls: [] },
      { role: 'assistant', content: 'x' },
    ],
    [
      'tool result',
      { role: 'tool', content: '{"ok":true}', toolCallId: 'call_1' },
      { role: 'tool', tool_call_id: 'call_1', content: '{"ok":true}' },
    ],
  ])('maps a %s message', (_name, message, expected) => {
    expect(toOpenAIMessage(message)).toStrictEqual(expected);
  });

  it('keeps system messages in place, in order', () => {
    const params = toOpenAIParams(
      {
        messages: [
          { role: 'system', content: 's1' },
          { role: 'user', content: 'u1' },
          { role: 'system', content: 's2' },
        ],
      },
      'gpt-4o',
    );
    expect(params.messages.map((m) => m.role)).toEqual(['system', 'user', 'system']);
  });

  it('leaves unset options out of the body instead of sending nulls', () => {
    expect(Object.keys(toOpenAIParams(hello, 'gpt-4o')).sort()).toEqual(['messages', 'model']);
    expect(toOpenAIParams({ ...hello, stop: [], tools: [] }, 'gpt-4o')).not.toHaveProperty('stop');
  });

  it('maps sampling options and stop sequences', () => {
    expect(toOpenAIParams({ ...hello, temperature: 0.2, topP: 0.9, stop: ['END'] }, 'gpt-4o')).toMatchObject({
      temperature: 0.2,
      top_p: 0.9,
      stop: ['END'],
    });
  });

  it('maps tools to type function, keeping only the fields that are set', () => {
    const params = toOpenAIParams(
      {
        ...hello,
        tools: [
          { name: 'lookup', description: 'Find things', parameters: { type: 'object', properties: {} } },
          { name: 'ping' },
        ],
        toolChoice: 'auto',
      },
      'gpt-4o',
    );
    expect(params.tools).toStrictEqual([
      {
        type: 'function',
        function: {
          name: 'lookup',
          description: 'Find things',
          parameters: { type: 'object', properties: {} },
        },
      },
      { type: 'function', function: { name: 'ping' } },
    ]);
    expect(params.tool_choice).toBe('auto');
  });

  it.each<[ToolChoice, unknown]>([
    ['auto', 'auto'],
    ['none', 'none'],
    ['required', 'required'],
    [{ name: 'lookup' }, { type: 'function', function: { name: 'lookup' } }],
  ])('maps tool choice %j', (choice, expected) => {
    expect(toOpenAIToolChoice(choice)).toStrictEqual(expected);
  });

  it('drops tool_choice when no tools are sent (OpenAI rejects it)', () => {
    expect(toOpenAIParams({ ...hello, toolChoice: 'required' }, 'gpt-4o')).not.toHaveProperty('tool_choice');
  });

  it('asks for usage in the last chunk when streaming', () => {
    expect(toOpenAIStreamParams(hello, 'gpt-4o')).toMatchObject({
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
    });
  });
});
