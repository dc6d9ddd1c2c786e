/** Reasoning and prompt caching in each provider family's own wire form, both ways. */
import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../lambda/core/chat/chat-model.js';
import { toAnthropicParams } from '../../../lambda/families/anthropic/anthropic-request.js';
import { createAnthropicStreamMapper } from '../../../lambda/families/anthropic/anthropic-response.js';
import { toConverseBody } from '../../../lambda/families/bedrock/bedrock-request.js';
import {
  createBedrockStreamMapper,
  mapBedrockUsage,
  mapConverseResponse,
} from '../../../lambda/families/bedrock/bedrock-response.js';
import { toOpenAIParams } from '../../../lambda/families/openai-compatible/openai-request.js';
import {
  createOpenAIStreamMapper,
  mapOpenAICompletion,
  mapOpenAIUsage,
} from '../../../lambda/families/openai-compatible/openai-response.js';

const subject = { provider: 'p', model: 'm' };

/** A second turn: a cached system prompt and tool, a signed thinking block, an unsigned one, a redacted one. */
const SECOND_TURN: ChatRequest = {
  messages: [
    { role: 'system', content: 'Long rules.', cache: {} },
    { role: 'system', content: 'Today.' },
    { role: 'user', content: 'Find x', cache: { ttl: '1h' } },
    {
      role: 'assistant',
      content: null,
      toolCalls: [{ id: 't1', name: 'lookup', arguments: '{"q":"x"}' }],
      reasoning: [
        { type: 'thinking', text: 'I should look.', signature: 'sig-1' },
        { type: 'thinking', text: 'unsigned musing' },
        { type: 'redacted', data: 'AAEC' },
      ],
    },
    { role: 'tool', toolCallId: 't1', content: 'found', cache: {} },
  ],
  tools: [
    { name: 'lookup', parameters: { type: 'object' }, cache: {} },
    { name: 'other', parameters: { type: 'object' } },
  ],
  maxTokens: 4000,
  reasoning: { effort: 'medium' },
};

describe('the Anthropic family', () => {
  const params = toAnthropicParams(SECOND_TURN, 'claude-x', 1024, subject);

  it('asks for thinking with the effort budget, kept below max_tokens', () => {
    expect(params.thinking).toEqual({ type: 'enabled', budget_tokens: 3999 });
    expect(
      toAnthropicParams({ ...SECOND_TURN, reasoning: { budgetTokens: 2000 } }, 'c', 1024, subject).thinking,
    ).toEqual({
      type: 'enabled',
      budget_tokens: 2000,
    });
    expect(
      toAnthropicParams({ ...SECOND_TURN, reasoning: undefined }, 'c', 1024, subject).thinking,
    ).toBeUndefined();
  });

  it('puts cache_control where the breakpoints are: system block, tool, message end', () => {
    expect(params.system).toEqual([
      { type: 'text', text: 'Long rules.', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'Today.' },
    ]);
    expect(params.tools?.map((t) => 'cache_control' in t && t.cache_control)).toEqual([
      { type: 'ephemeral' },
      false,
    ]);
    expect(params.messages[0]).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'Find x', cache_control: { type: 'ephemeral', ttl: '1h' } }],
    });
    expect(params.messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 't1', content: 'found', cache_control: { type: 'ephemeral' } },
      ],
    });
  });

  it('sends signed and redacted thinking back first and unchanged, and leaves unsigned reasoning out', () => {
    expect(params.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'I should look.', signature: 'sig-1' },
        { type: 'redacted_thinking', data: 'AAEC' },
        { type: 'tool_use', id: 't1', name: 'lookup', input: { q: 'x' } },
      ],
    });
  });

  it('puts no cache_control on a thinking block: a turn of thinking alone carries no breakpoint', () => {
    const onlyThinking = toAnthropicParams(
      {
        messages: [
          { role: 'user', content: 'hi' },
          {
            role: 'assistant',
            content: null,
            reasoning: [{ type: 'thinking', text: 'Hm', signature: 's' }],
            cache: {},
          },
        ],
      },
      'c',
      5,
      subject,
    );
    expect(onlyThinking.messages[1]).toEqual({
      role: 'assistant',
      content: [{ type: 'thinking', thinking: 'Hm', signature: 's' }],
    });
  });

  it('keeps the system prompt one string when no system message sets a breakpoint', () => {
    const plain = toAnthropicParams(
      {
        messages: [
          { role: 'system', content: 'A' },
          { role: 'system', content: 'B' },
          { role: 'user', content: 'hi' },
        ],
      },
      'c',
      5,
      subject,
    );
    expect(plain.system).toBe('A\n\nB');
    expect(plain.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('streams thinking text, then its signature, as reasoning events; a redacted block as one', () => {
    const mapper = createAnthropicStreamMapper(subject);
    const events = [
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hm' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig' } },
      { type: 'content_block_start', index: 1, content_block: { type: 'redacted_thinking', data: 'xyz' } },
    ].flatMap((e) => mapper.push(e));
    expect(events).toEqual([
      { type: 'reasoning', text: 'Hm' },
      { type: 'reasoning', signature: 'sig' },
      { type: 'reasoning', redacted: 'xyz' },
    ]);
  });
});

describe('the Bedrock family', () => {
  const body = toConverseBody(SECOND_TURN, 'us.anthropic.claude-sonnet-4-v1:0', subject);

  it('asks Claude for thinking with a budget (room for the answer when no limit is set), and Nova for its effort', () => {
    expect(body.additionalModelRequestFields).toEqual({ thinking: { type: 'enabled', budget_tokens: 3999 } });
    const nova = toConverseBody(
      { ...SECOND_TURN, reasoning: { effort: 'minimal' } },
      'us.amazon.nova-2-lite-v1:0',
      subject,
    );
    expect(nova.additionalModelRequestFields).toEqual({
      reasoningConfig: { type: 'enabled', maxReasoningEffort: 'low' },
    });
    const unbounded = toConverseBody(
      { ...SECOND_TURN, maxTokens: undefined },
      'us.anthropic.claude',
      subject,
    );
    expect(unbounded.inferenceConfig).toEqual({ maxTokens: 8192 + 4096 });
    expect(nova.inferenceConfig).toEqual({ maxTokens: 4000 });
    const none = toConverseBody({ ...SECOND_TURN, reasoning: undefined }, 'us.anthropic.claude', subject);
    expect(none.additionalModelRequestFields).toBeUndefined();
  });

  it('puts a cachePoint after each breakpoint: system block, tool, message', () => {
    expect(body.system).toEqual([
      { text: 'Long rules.' },
      { cachePoint: { type: 'default' } },
      { text: 'Today.' },
    ]);
    expect(body.toolConfig?.tools?.map((t) => Object.keys(t)[0])).toEqual([
      'toolSpec',
      'cachePoint',
      'toolSpec',
    ]);
    expect(body.messages[0]).toEqual({
      role: 'user',
      content: [{ text: 'Find x' }, { cachePoint: { type: 'default', ttl: '1h' } }],
    });
    expect(body.messages[2]?.content?.at(-1)).toEqual({ cachePoint: { type: 'default' } });
  });

  it('sends signed reasoning and redacted bytes back first, and leaves unsigned reasoning out', () => {
    expect(body.messages[1]?.content?.slice(0, 2)).toEqual([
      { reasoningContent: { reasoningText: { text: 'I should look.', signature: 'sig-1' } } },
      { reasoningContent: { redactedContent: Buffer.from([0, 1, 2]) } },
    ]);
    expect(body.messages[1]?.content).toHaveLength(3);
  });

  it('reads reasoningContent blocks and cache counts from an answer', () => {
    const result = mapConverseResponse(
      {
        output: {
          message: {
            content: [
              { reasoningContent: { reasoningText: { text: 'Think', signature: 's1' } } },
              { reasoningContent: { redactedContent: new Uint8Array([0, 1, 2]) } },
              { text: 'Done.' },
            ],
          },
        },
        stopReason: 'end_turn',
        usage: { inputTokens: 10, outputTokens: 5, cacheReadInputTokens: 100, cacheWriteInputTokens: 20 },
      },
      subject,
    );
    expect(result).toEqual({
      content: 'Done.',
      toolCalls: [],
      finishReason: 'stop',
      usage: { inputTokens: 130, outputTokens: 5, cacheReadTokens: 100, cacheWriteTokens: 20 },
      reasoning: [
        { type: 'thinking', text: 'Think', signature: 's1' },
        { type: 'redacted', data: 'AAEC' },
      ],
    });
    expect(mapBedrockUsage({ inputTokens: 3, outputTokens: 4 })).toEqual({ inputTokens: 3, outputTokens: 4 });
  });

  it('streams reasoning deltas as reasoning events', () => {
    const mapper = createBedrockStreamMapper(subject);
    const events = [
      { contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { text: 'Hm' } } } },
      { contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { signature: 'sig' } } } },
      {
        contentBlockDelta: {
          contentBlockIndex: 1,
          delta: { reasoningContent: { redactedContent: new Uint8Array([0, 1, 2]) } },
        },
      },
    ].flatMap((e) => mapper.push(e as never));
    expect(events).toEqual([
      { type: 'reasoning', text: 'Hm' },
      { type: 'reasoning', signature: 'sig' },
      { type: 'reasoning', redacted: 'AAEC' },
    ]);
  });
});

describe('the OpenAI-compatible family', () => {
  it('sends reasoning_effort, reading a budget as its effort, and no reasoning back', () => {
    const params = toOpenAIParams(SECOND_TURN, 'o4-mini');
    expect(params.reasoning_effort).toBe('medium');
    expect(
      toOpenAIParams({ ...SECOND_TURN, reasoning: { budgetTokens: 20_000 } }, 'm').reasoning_effort,
    ).toBe('high');
    expect(toOpenAIParams({ ...SECOND_TURN, reasoning: undefined }, 'm')).not.toHaveProperty(
      'reasoning_effort',
    );
    expect(JSON.stringify(params.messages)).not.toContain('sig-1');
  });

  it('reads reasoning_content (else reasoning) as unsigned reasoning', () => {
    const answer = (message: object) =>
      mapOpenAICompletion(
        { choices: [{ message: { content: 'ok', ...message }, finish_reason: 'stop' }] },
        subject,
      );
    expect(answer({ reasoning_content: 'Because.' }).reasoning).toEqual([
      { type: 'thinking', text: 'Because.' },
    ]);
    expect(answer({ reasoning: 'Via router.' }).reasoning).toEqual([
      { type: 'thinking', text: 'Via router.' },
    ]);
    expect(answer({})).not.toHaveProperty('reasoning');
  });

  it('reads cached, cache-write and reasoning token details', () => {
    expect(
      mapOpenAIUsage({
        prompt_tokens: 100,
        completion_tokens: 50,
        prompt_tokens_details: { cached_tokens: 60, cache_write_tokens: 30 },
        completion_tokens_details: { reasoning_tokens: 40 },
      }),
    ).toEqual({
      inputTokens: 100,
      outputTokens: 50,
      cacheReadTokens: 60,
      cacheWriteTokens: 30,
      reasoningTokens: 40,
    });
    expect(mapOpenAIUsage({ prompt_tokens: 9, completion_tokens: 1, prompt_cache_hit_tokens: 8 })).toEqual({
      inputTokens: 9,
      outputTokens: 1,
      cacheReadTokens: 8,
    });
  });

  it('streams reasoning_content deltas as reasoning events before the text', () => {
    const mapper = createOpenAIStreamMapper(subject);
    const events = [
      { choices: [{ index: 0, delta: { reasoning_content: 'Hm' } }] },
      { choices: [{ index: 0, delta: { content: 'Hi' } }] },
    ].flatMap((c) => mapper.push(c));
    expect(events).toEqual([
      { type: 'reasoning', text: 'Hm' },
      { type: 'text', text: 'Hi' },
    ]);
  });
});
