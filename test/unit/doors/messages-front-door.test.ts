import { describe, expect, it } from 'vitest';
import type { ChatStreamEvent } from '../../../lambda/core/chat/chat-model.js';
import { anthropicErrorType } from '../../../lambda/doors/anthropic-messages/anthropic-errors.js';
import {
  anthropicUsage,
  createMessagesEventWriter,
  messageBody,
  toolInput,
} from '../../../lambda/doors/anthropic-messages/anthropic-format.js';
import {
  messagesBodySchema,
  messagesToChatRequest,
} from '../../../lambda/doors/anthropic-messages/messages-request-schema.js';

const IDS = { id: 'msg_1', model: 'gpt-mini' };
const parse = (body: unknown) => messagesToChatRequest(messagesBodySchema.parse(body));

describe('a Messages request read as a neutral chat request', () => {
  it('puts system first, hands tool results back before the text of their turn, and keeps signed thinking', () => {
    const chat = parse({
      model: 'p',
      max_tokens: 50,
      system: [
        { type: 'text', text: 'Be ' },
        { type: 'text', text: 'brief.' },
      ],
      messages: [
        { role: 'user', content: 'Find x' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 'sig' },
            { type: 'tool_use', id: 't1', name: 'lookup', input: { q: 'x' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'found' }] },
            { type: 'text', text: 'Thanks' },
          ],
        },
      ],
      stop_sequences: ['END'],
      temperature: 0.2,
      tools: [{ name: 'lookup', input_schema: { type: 'object' } }],
      tool_choice: { type: 'any' },
      metadata: { user_id: 'u' },
    });
    expect(chat).toEqual({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Find x' },
        {
          role: 'assistant',
          content: null,
          toolCalls: [{ id: 't1', name: 'lookup', arguments: '{"q":"x"}' }],
          reasoning: [{ type: 'thinking', text: 'hmm', signature: 'sig' }],
        },
        { role: 'tool', toolCallId: 't1', content: 'found' },
        { role: 'user', content: 'Thanks' },
      ],
      maxTokens: 50,
      temperature: 0.2,
      topP: undefined,
      stop: ['END'],
      tools: [{ name: 'lookup', description: undefined, parameters: { type: 'object' } }],
      toolChoice: 'required',
    });
  });

  it.each([
    [{ type: 'auto' }, 'auto'],
    [{ type: 'none' }, 'none'],
    [{ type: 'any' }, 'required'],
    [{ type: 'tool', name: 'lookup' }, { name: 'lookup' }],
  ])('maps tool_choice %j to %j', (choice, expected) => {
    const chat = parse({
      max_tokens: 5,
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ name: 'lookup', input_schema: {} }],
      tool_choice: choice,
    });
    expect(chat.toolChoice).toEqual(expected);
  });

  it.each([
    ['no max_tokens', { messages: [{ role: 'user', content: 'hi' }] }, 'max_tokens'],
    [
      'a temperature above 1',
      { max_tokens: 5, temperature: 1.5, messages: [{ role: 'user', content: 'hi' }] },
      'temperature',
    ],
    [
      'a system role in messages',
      { max_tokens: 5, messages: [{ role: 'system', content: 'x' }] },
      'messages',
    ],
    [
      'a server tool',
      {
        max_tokens: 5,
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ type: 'web_search_20250305', name: 'web_search', input_schema: {} }],
      },
      'tools',
    ],
  ])('refuses %s, naming the field', (_label, body, field) => {
    const parsed = messagesBodySchema.safeParse(body);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path[0]).toBe(field);
  });
});

describe('answers in the Messages shape', () => {
  it('writes text, then tool_use blocks with their input objects, and Anthropic usage', () => {
    const body = messageBody(
      {
        content: 'Looking.',
        toolCalls: [{ id: 'c1', name: 'lookup', arguments: '{"q":"x"}' }],
        finishReason: 'tool_calls',
        usage: { inputTokens: 120, outputTokens: 9, cacheReadTokens: 100, cacheWriteTokens: 15 },
      },
      IDS,
    );
    expect(body).toEqual({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'gpt-mini',
      content: [
        { type: 'text', text: 'Looking.' },
        { type: 'tool_use', id: 'c1', name: 'lookup', input: { q: 'x' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: {
        input_tokens: 5,
        output_tokens: 9,
        cache_creation_input_tokens: 15,
        cache_read_input_tokens: 100,
      },
    });
  });

  it.each([
    ['', {}],
    ['{"a":1}', { a: 1 }],
    ['[1,2]', { arguments: '[1,2]' }],
    ['{"cut', { arguments: '{"cut' }],
  ])('reads tool arguments %j as the input %j', (text, input) => {
    expect(toolInput({ arguments: text })).toEqual(input);
  });

  it('reports zero usage when the upstream gave none', () => {
    expect(anthropicUsage(undefined)).toEqual({
      input_tokens: 0,
      output_tokens: 0,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
  });

  it.each([
    [400, 'invalid_request_error'],
    [401, 'authentication_error'],
    [403, 'permission_error'],
    [404, 'not_found_error'],
    [413, 'request_too_large'],
    [429, 'rate_limit_error'],
    [499, 'invalid_request_error'],
    [502, 'api_error'],
    [503, 'api_error'],
    [504, 'timeout_error'],
  ])('names status %i %s in the error envelope', (status, type) => {
    expect(anthropicErrorType(status)).toBe(type);
  });
});

describe('stream events in the Messages shape', () => {
  const write = (events: ChatStreamEvent[]) => {
    const writer = createMessagesEventWriter(IDS);
    return [
      ...writer.start(),
      ...events.flatMap((e) => writer.push(e)),
      ...writer.end({ inputTokens: 4, outputTokens: 6 }),
    ].map((e) => {
      const { type, ...data } = e.data;
      expect(type).toBe(e.type);
      return [e.type, data];
    });
  };

  it('opens a block per kind of content, closes it before the next, and ends with the stop reason and usage', () => {
    const events = write([
      { type: 'text', text: 'Let me ' },
      { type: 'text', text: 'look.' },
      { type: 'tool_call', index: 0, id: 'c1', name: 'lookup' },
      { type: 'tool_call', index: 0, argumentsDelta: '{"q":' },
      { type: 'tool_call', index: 0, argumentsDelta: '"x"}' },
      { type: 'finish', finishReason: 'tool_calls' },
    ]);
    expect(events.map(([type]) => type)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events[5]).toEqual([
      'content_block_start',
      { index: 1, content_block: { type: 'tool_use', id: 'c1', name: 'lookup', input: {} } },
    ]);
    expect(events[7]).toEqual([
      'content_block_delta',
      { index: 1, delta: { type: 'input_json_delta', partial_json: '"x"}' } },
    ]);
    expect(events[9]).toEqual([
      'message_delta',
      {
        delta: { stop_reason: 'tool_use', stop_sequence: null },
        usage: {
          input_tokens: 4,
          output_tokens: 6,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        },
      },
    ]);
  });

  it('opens a tool block with an id of its own when the upstream sent arguments before a name', () => {
    const events = write([{ type: 'tool_call', index: 2, argumentsDelta: '{}' }]);
    expect(events[1]).toEqual([
      'content_block_start',
      { index: 0, content_block: { type: 'tool_use', id: 'toolu_msg_1_2', name: '', input: {} } },
    ]);
  });

  it('starts with an empty message the SDK can accumulate into', () => {
    const [start] = write([]);
    expect(start).toEqual([
      'message_start',
      {
        message: expect.objectContaining({ id: 'msg_1', model: 'gpt-mini', content: [], stop_reason: null }),
      },
    ]);
  });
});
