/** Reasoning and prompt caching read from each door's body and written in each door's answer. */
import { describe, expect, it } from 'vitest';
import type { ChatResult, ChatStreamEvent } from '../../../lambda/core/chat/chat-model.js';
import {
  anthropicUsage,
  createMessagesEventWriter,
  messageBody,
} from '../../../lambda/doors/anthropic-messages/anthropic-format.js';
import {
  messagesBodySchema,
  messagesToChatRequest,
} from '../../../lambda/doors/anthropic-messages/messages-request-schema.js';
import {
  chatCompletionBodySchema,
  toChatRequest,
} from '../../../lambda/doors/openai-chat/chat-request-schema.js';
import { completionBody, openAIUsage } from '../../../lambda/doors/openai-chat/openai-format.js';
import { openAIStreamFormat } from '../../../lambda/doors/openai-chat/openai-stream-format.js';

const SIGNED: ChatResult = {
  content: 'Answer.',
  toolCalls: [],
  finishReason: 'stop',
  reasoning: [
    { type: 'thinking', text: 'Step one. ', signature: 'sig-1' },
    { type: 'redacted', data: 'opaque' },
  ],
  usage: {
    inputTokens: 100,
    outputTokens: 30,
    cacheReadTokens: 60,
    cacheWriteTokens: 25,
    reasoningTokens: 12,
  },
};

describe('the chat completions door', () => {
  const chat = (body: object) =>
    toChatRequest(
      chatCompletionBodySchema.parse({ model: 'p', messages: [{ role: 'user', content: 'hi' }], ...body }),
    );

  it('reads reasoning_effort as the request reasoning, and refuses an unknown effort naming the field', () => {
    expect(chat({ reasoning_effort: 'high' }).reasoning).toEqual({ effort: 'high' });
    expect(chat({})).not.toHaveProperty('reasoning');
    const bad = chatCompletionBodySchema.safeParse({
      messages: [{ role: 'user', content: 'x' }],
      reasoning_effort: 'max',
    });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['reasoning_effort']);
  });

  it('reads cache_control on a content part or on a message as a breakpoint at the message end', () => {
    const request = chat({
      messages: [
        {
          role: 'system',
          content: [
            { type: 'text', text: 'Rules.', cache_control: { type: 'ephemeral', ttl: '1h' } },
            { type: 'text', text: ' More.' },
          ],
        },
        { role: 'user', content: 'Q', cache_control: { type: 'ephemeral' } },
        { role: 'user', content: 'plain' },
      ],
    });
    expect(request.messages).toEqual([
      { role: 'system', content: 'Rules. More.', cache: { ttl: '1h' } },
      { role: 'user', content: 'Q', cache: {} },
      { role: 'user', content: 'plain' },
    ]);
  });

  it('reads reasoning_details handed back on an assistant message as its reasoning', () => {
    const request = chat({
      messages: [
        { role: 'user', content: 'Q' },
        {
          role: 'assistant',
          content: 'A',
          reasoning_details: [
            { type: 'reasoning.text', text: 'Step one. ', signature: 'sig-1' },
            { type: 'reasoning.encrypted', data: 'opaque' },
            { type: 'reasoning.summary', summary: 'skip me' },
          ],
        },
      ],
    });
    expect(request.messages[1]).toEqual({ role: 'assistant', content: 'A', reasoning: SIGNED.reasoning });
  });

  it('answers with reasoning_content and the signed blocks as reasoning_details, and every usage detail', () => {
    const body = completionBody(SIGNED, { id: 'c', created: 1, model: 'm' });
    expect(body.choices[0]?.message).toMatchObject({
      content: 'Answer.',
      reasoning_content: 'Step one. ',
      reasoning_details: [
        { type: 'reasoning.text', text: 'Step one. ', signature: 'sig-1' },
        { type: 'reasoning.encrypted', data: 'opaque' },
      ],
    });
    expect(body.usage).toEqual({
      prompt_tokens: 100,
      completion_tokens: 30,
      total_tokens: 130,
      prompt_tokens_details: { cached_tokens: 60, cache_write_tokens: 25 },
      completion_tokens_details: { reasoning_tokens: 12 },
    });
  });

  it('leaves reasoning_details out for unsigned reasoning, and both fields out without reasoning', () => {
    const unsigned = completionBody(
      { ...SIGNED, reasoning: [{ type: 'thinking', text: 'why' }] },
      { id: 'c', created: 1, model: 'm' },
    );
    expect(unsigned.choices[0]?.message).toMatchObject({ reasoning_content: 'why' });
    expect(unsigned.choices[0]?.message).not.toHaveProperty('reasoning_details');
    const plain = completionBody({ ...SIGNED, reasoning: undefined }, { id: 'c', created: 1, model: 'm' });
    expect(plain.choices[0]?.message).not.toHaveProperty('reasoning_content');
    expect(openAIUsage({ inputTokens: 1, outputTokens: 2 })).toEqual({
      prompt_tokens: 1,
      completion_tokens: 2,
      total_tokens: 3,
    });
  });

  it('streams reasoning text as reasoning_content deltas and leaves signatures and redacted blocks out', () => {
    const format = openAIStreamFormat({ id: 'c', created: 1, model: 'm' }, false);
    expect(format.event({ type: 'reasoning', text: 'Hm' })).toContain('"delta":{"reasoning_content":"Hm"}');
    expect(format.event({ type: 'reasoning', signature: 'sig' })).toBe('');
    expect(format.event({ type: 'reasoning', redacted: 'x' })).toBe('');
  });
});

describe('the Messages door', () => {
  const parse = (body: object) =>
    messagesToChatRequest(
      messagesBodySchema.parse({ max_tokens: 2048, messages: [{ role: 'user', content: 'hi' }], ...body }),
    );

  it('reads thinking enabled as a reasoning budget, disabled as none, and refuses a budget under 1024', () => {
    expect(parse({ thinking: { type: 'enabled', budget_tokens: 1024 } }).reasoning).toEqual({
      budgetTokens: 1024,
    });
    expect(parse({ thinking: { type: 'disabled' } })).not.toHaveProperty('reasoning');
    const bad = messagesBodySchema.safeParse({
      max_tokens: 5,
      messages: [{ role: 'user', content: 'x' }],
      thinking: { type: 'enabled', budget_tokens: 1023 },
    });
    expect(bad.error?.issues[0]?.path).toEqual(['thinking', 'budget_tokens']);
  });

  it('keeps each system block apart when one sets cache_control, and reads breakpoints on tools and tool results', () => {
    const request = parse({
      system: [
        { type: 'text', text: 'Rules.', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'Today.' },
      ],
      tools: [
        { name: 'lookup', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral', ttl: '1h' } },
      ],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Q', cache_control: { type: 'ephemeral' } }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Hm', signature: 'sig' },
            { type: 'redacted_thinking', data: 'opaque' },
            { type: 'tool_use', id: 't1', name: 'lookup', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't1',
              content: 'found',
              cache_control: { type: 'ephemeral' },
            },
          ],
        },
      ],
    });
    expect(request.messages).toEqual([
      { role: 'system', content: 'Rules.', cache: {} },
      { role: 'system', content: 'Today.' },
      { role: 'user', content: 'Q', cache: {} },
      {
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 't1', name: 'lookup', arguments: '{}' }],
        reasoning: [
          { type: 'thinking', text: 'Hm', signature: 'sig' },
          { type: 'redacted', data: 'opaque' },
        ],
      },
      { role: 'tool', toolCallId: 't1', content: 'found', cache: {} },
    ]);
    expect(request.tools?.[0]?.cache).toEqual({ ttl: '1h' });
  });

  it('answers with the thinking blocks first, signed as they came', () => {
    expect(messageBody(SIGNED, { id: 'msg', model: 'm' }).content).toEqual([
      { type: 'thinking', thinking: 'Step one. ', signature: 'sig-1' },
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'text', text: 'Answer.' },
    ]);
    expect(anthropicUsage(SIGNED.usage)).toEqual({
      input_tokens: 15,
      output_tokens: 30,
      cache_creation_input_tokens: 25,
      cache_read_input_tokens: 60,
    });
  });

  it('streams a thinking block (text deltas, then its signature), a redacted block, then the text block', () => {
    const writer = createMessagesEventWriter({ id: 'msg', model: 'm' });
    const events: ChatStreamEvent[] = [
      { type: 'reasoning', text: 'Step ' },
      { type: 'reasoning', text: 'one.' },
      { type: 'reasoning', signature: 'sig-1' },
      { type: 'reasoning', redacted: 'opaque' },
      { type: 'text', text: 'Answer.' },
    ];
    const out = events.flatMap((e) => writer.push(e)).map((e) => e.data);
    expect(out).toEqual([
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Step ' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'one.' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig-1' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'redacted_thinking', data: 'opaque' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'content_block_start', index: 2, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'Answer.' } },
    ]);
  });
});
