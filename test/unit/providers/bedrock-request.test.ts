import { describe, expect, it } from 'vitest';
import type { ChatMessage, ChatRequest, ToolChoice } from '../../../lambda/core/chat/chat-model.js';
import { ProviderError } from '../../../lambda/core/failures/provider-error.js';
import {
  toConverseBody,
  toConverseMessages,
  toConverseToolChoice,
  toConverseToolConfig,
  toInferenceConfig,
} from '../../../lambda/families/bedrock/bedrock-request.js';

const subject = { provider: 'bedrock', model: 'llama-br' };
const lookup = { id: 'tooluse_1', name: 'lookup', arguments: '{"q":"x"}' };

describe('bedrock request mapping', () => {
  it.each<[string, ChatMessage[], unknown]>([
    ['a user message', [{ role: 'user', content: 'hi' }], [{ role: 'user', content: [{ text: 'hi' }] }]],
    [
      'an assistant text',
      [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ],
      [
        { role: 'user', content: [{ text: 'hi' }] },
        { role: 'assistant', content: [{ text: 'hello' }] },
      ],
    ],
    [
      'assistant tool calls as toolUse blocks with parsed input',
      [{ role: 'assistant', content: 'let me look', toolCalls: [lookup] }],
      [
        {
          role: 'assistant',
          content: [
            { text: 'let me look' },
            { toolUse: { toolUseId: 'tooluse_1', name: 'lookup', input: { q: 'x' } } },
          ],
        },
      ],
    ],
    [
      'a tool message as a user toolResult block',
      [{ role: 'tool', content: '{"found":1}', toolCallId: 'tooluse_1' }],
      [
        {
          role: 'user',
          content: [{ toolResult: { toolUseId: 'tooluse_1', content: [{ text: '{"found":1}' }] } }],
        },
      ],
    ],
    [
      'consecutive user messages merged (Converse requires alternation)',
      [
        { role: 'user', content: 'a' },
        { role: 'user', content: 'b' },
      ],
      [{ role: 'user', content: [{ text: 'a' }, { text: 'b' }] }],
    ],
    [
      'parallel tool results and a following user text merged into one user turn',
      [
        { role: 'tool', content: 'r1', toolCallId: 't1' },
        { role: 'tool', content: 'r2', toolCallId: 't2' },
        { role: 'user', content: 'and?' },
      ],
      [
        {
          role: 'user',
          content: [
            { toolResult: { toolUseId: 't1', content: [{ text: 'r1' }] } },
            { toolResult: { toolUseId: 't2', content: [{ text: 'r2' }] } },
            { text: 'and?' },
          ],
        },
      ],
    ],
    [
      'empty texts dropped (Converse rejects blank text)',
      [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: '' },
        { role: 'user', content: 'again' },
      ],
      [{ role: 'user', content: [{ text: 'hi' }, { text: 'again' }] }],
    ],
  ])('maps %s', (_name, messages, expected) => {
    expect(toConverseMessages(messages, subject).messages).toStrictEqual(expected);
  });

  it('hoists system messages into system blocks, wherever they stand', () => {
    const { system, messages } = toConverseMessages(
      [
        { role: 'system', content: 's1' },
        { role: 'user', content: 'u' },
        { role: 'system', content: 's2' },
      ],
      subject,
    );
    expect(system).toStrictEqual([{ text: 's1' }, { text: 's2' }]);
    expect(messages).toStrictEqual([{ role: 'user', content: [{ text: 'u' }] }]);
  });

  it.each([
    ['empty text', '', {}],
    ['whitespace', '  ', {}],
    ['an object', '{"a":[1,2]}', { a: [1, 2] }],
  ])('parses tool call arguments given as %s', (_name, args, input) => {
    const { messages } = toConverseMessages(
      [{ role: 'assistant', content: null, toolCalls: [{ ...lookup, arguments: args }] }],
      subject,
    );
    expect(messages[0]?.content?.[0]?.toolUse?.input).toStrictEqual(input);
  });

  it.each([
    ['invalid JSON', '{"a":'],
    ['a JSON array', '[1]'],
    ['a JSON string', '"x"'],
  ])('rejects tool call arguments that are %s as invalid_request', (_name, args) => {
    const map = () =>
      toConverseMessages(
        [{ role: 'assistant', content: null, toolCalls: [{ ...lookup, arguments: args }] }],
        subject,
      );
    expect(map).toThrow(ProviderError);
    expect(map).toThrow(expect.objectContaining({ failureClass: 'invalid_request', model: 'llama-br' }));
  });

  it.each<[ToolChoice | undefined, unknown]>([
    ['auto', { auto: {} }],
    ['required', { any: {} }],
    [{ name: 'lookup' }, { tool: { name: 'lookup' } }],
    ['none', undefined],
    [undefined, undefined],
  ])('maps tool choice %j', (choice, expected) => {
    expect(toConverseToolChoice(choice)).toStrictEqual(expected);
  });

  const withTools = (toolChoice?: ToolChoice): ChatRequest => ({
    messages: [{ role: 'user', content: 'hi' }],
    tools: [
      { name: 'lookup', description: 'Find', parameters: { type: 'object', properties: { q: {} } } },
      { name: 'ping' },
    ],
    toolChoice,
  });

  it('maps tools to toolSpec with a JSON input schema (an empty object schema when none is given)', () => {
    expect(toConverseToolConfig(withTools('required'), [])).toStrictEqual({
      tools: [
        {
          toolSpec: {
            name: 'lookup',
            description: 'Find',
            inputSchema: { json: { type: 'object', properties: { q: {} } } },
          },
        },
        { toolSpec: { name: 'ping', inputSchema: { json: { type: 'object', properties: {} } } } },
      ],
      toolChoice: { any: {} },
    });
  });

  it('leaves tools out for tool choice none, unless the history holds tool blocks', () => {
    expect(toConverseToolConfig(withTools('none'), [])).toBeUndefined();
    const history = toConverseMessages([{ role: 'tool', content: 'r', toolCallId: 't' }], subject).messages;
    const config = toConverseToolConfig(withTools('none'), history);
    expect(config?.tools).toHaveLength(2);
    expect(config).not.toHaveProperty('toolChoice');
  });

  it('sends no toolConfig without tools', () => {
    expect(toConverseToolConfig({ messages: [], toolChoice: 'auto' }, [])).toBeUndefined();
  });

  it('maps inferenceConfig and leaves it out when nothing is set', () => {
    expect(toInferenceConfig({ messages: [] })).toBeUndefined();
    expect(toInferenceConfig({ messages: [], stop: [] })).toBeUndefined();
    expect(
      toInferenceConfig({ messages: [], maxTokens: 100, temperature: 0, topP: 0.5, stop: ['END'] }),
    ).toStrictEqual({ maxTokens: 100, temperature: 0, topP: 0.5, stopSequences: ['END'] });
  });

  it('builds a body with only the fields that are set', () => {
    expect(
      toConverseBody({ messages: [{ role: 'user', content: 'hi' }] }, 'meta.llama3', subject),
    ).toStrictEqual({
      modelId: 'meta.llama3',
      messages: [{ role: 'user', content: [{ text: 'hi' }] }],
    });
    const full = toConverseBody(
      {
        ...withTools('auto'),
        messages: [
          { role: 'system', content: 's' },
          { role: 'user', content: 'hi' },
        ],
        maxTokens: 5,
      },
      'meta.llama3',
      subject,
    );
    expect(Object.keys(full).sort()).toEqual([
      'inferenceConfig',
      'messages',
      'modelId',
      'system',
      'toolConfig',
    ]);
  });
});
