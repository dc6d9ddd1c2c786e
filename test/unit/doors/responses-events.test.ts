import { describe, expect, it } from 'vitest';
import type { ChatStreamEvent } from '../../../lambda/core/chat/chat-model.js';
import { ResponsesEventWriter } from '../../../lambda/doors/openai-responses/responses-events.js';
import { completedBody, responsesUsage } from '../../../lambda/doors/openai-responses/responses-format.js';

const IDS = { id: 'resp_r1', createdAt: 1_700_000_000, model: 'gpt-mini' };
const writer = () => new ResponsesEventWriter(IDS, {});
const run = (events: ChatStreamEvent[], usage = { inputTokens: 3, outputTokens: 4 }) => {
  const w = writer();
  return [...w.start(), ...events.flatMap((e) => w.push(e)), ...w.end(usage)];
};

describe('a plain answer as a response object', () => {
  it('holds a message item and one function_call item per call, with usage and its details', () => {
    const body = completedBody(
      {
        content: 'Checking.',
        toolCalls: [{ id: 'call_1', name: 'w', arguments: '{"a":1}' }],
        finishReason: 'tool_calls',
        usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 4 },
      },
      IDS,
      { instructions: 'x', metadata: { k: 'v' } },
    );
    expect(body).toMatchObject({
      id: 'resp_r1',
      object: 'response',
      created_at: 1_700_000_000,
      status: 'completed',
      model: 'gpt-mini',
      instructions: 'x',
      store: false,
      metadata: { k: 'v' },
      output: [
        {
          type: 'message',
          id: 'msg_r1_0',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Checking.' }],
        },
        {
          type: 'function_call',
          id: 'fc_r1_1',
          call_id: 'call_1',
          name: 'w',
          arguments: '{"a":1}',
          status: 'completed',
        },
      ],
      usage: {
        input_tokens: 10,
        input_tokens_details: { cached_tokens: 4 },
        output_tokens: 5,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 15,
      },
    });
  });

  it('is incomplete with OpenAI’s reason when the answer was cut by the token limit or a filter', () => {
    const cut = completedBody({ content: 'Hel', toolCalls: [], finishReason: 'length' }, IDS, {});
    expect(cut).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    const filtered = completedBody({ content: null, toolCalls: [], finishReason: 'content_filter' }, IDS, {});
    expect(filtered).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'content_filter' },
      output: [],
    });
  });

  it('reports zero usage when the route reported none', () => {
    expect(responsesUsage(undefined)).toMatchObject({ input_tokens: 0, output_tokens: 0, total_tokens: 0 });
  });
});

describe('a streamed answer as Responses events', () => {
  it('writes the documented sequence for text then a function call, numbered from 0 without gaps', () => {
    const events = run([
      { type: 'text', text: 'Hi' },
      { type: 'text', text: ' there' },
      { type: 'tool_call', index: 0, id: 'call_9', name: 'w', argumentsDelta: '{"a"' },
      { type: 'tool_call', index: 0, argumentsDelta: ':1}' },
      { type: 'finish', finishReason: 'tool_calls' },
    ]);
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.data.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.every((e) => e.data.type === e.type)).toBe(true);
    expect(events[6]?.data).toMatchObject({
      item_id: 'msg_r1_0',
      output_index: 0,
      content_index: 0,
      text: 'Hi there',
    });
    expect(events[9]?.data).toMatchObject({
      output_index: 1,
      item: {
        type: 'function_call',
        id: 'fc_r1_1',
        call_id: 'call_9',
        name: 'w',
        arguments: '',
        status: 'in_progress',
      },
    });
    expect(events[12]?.data).toMatchObject({
      item_id: 'fc_r1_1',
      output_index: 1,
      name: 'w',
      arguments: '{"a":1}',
    });
    const completed = events.at(-1)?.data.response as Record<string, unknown>;
    expect(completed).toMatchObject({
      status: 'completed',
      output: [
        { type: 'message', status: 'completed', content: [{ text: 'Hi there' }] },
        { type: 'function_call', status: 'completed', arguments: '{"a":1}' },
      ],
      usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7 },
    });
  });

  it('starts with an empty in-progress response, and a snapshot is not changed by later deltas', () => {
    const w = writer();
    const [created] = w.start();
    expect(created?.data.response).toMatchObject({ status: 'in_progress', output: [], usage: null });
    const added = w.push({ type: 'text', text: 'a' });
    w.push({ type: 'text', text: 'b' });
    expect(added[0]?.data.item).toMatchObject({ content: [] });
  });

  it('opens a new message for text after a function call, and ends a cut answer as response.incomplete', () => {
    const events = run([
      { type: 'tool_call', index: 0, id: 'c', name: 'w', argumentsDelta: '{}' },
      { type: 'text', text: 'more' },
      { type: 'finish', finishReason: 'length' },
    ]);
    const added = events.filter((e) => e.type === 'response.output_item.added').map((e) => e.data.item);
    expect(added).toMatchObject([
      { type: 'function_call', id: 'fc_r1_0' },
      { type: 'message', id: 'msg_r1_1' },
    ]);
    const last = events.at(-1);
    expect(last?.type).toBe('response.incomplete');
    expect(last?.data.response).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
    });
    const lastDone = events.filter((e) => e.type === 'response.output_item.done').at(-1);
    expect(lastDone?.data.item).toMatchObject({ type: 'message', status: 'incomplete' });
  });

  it('ends a failed stream with error (flat and nested) then response.failed with the output so far', () => {
    const w = writer();
    const head = [...w.start(), ...w.push({ type: 'text', text: 'par' })];
    const tail = w.fail('upstream broke');
    expect(tail.map((e) => e.type)).toEqual(['error', 'response.failed']);
    expect(tail[0]?.data).toMatchObject({
      sequence_number: head.length,
      code: 'stream_interrupted',
      message: 'upstream broke',
      param: null,
      error: { type: 'api_error', code: 'stream_interrupted', message: 'upstream broke' },
    });
    expect(tail[1]?.data).toMatchObject({
      sequence_number: head.length + 1,
      response: {
        status: 'failed',
        error: { code: 'stream_interrupted', message: 'upstream broke' },
        output: [{ type: 'message', status: 'in_progress', content: [{ text: 'par' }] }],
      },
    });
  });
});

describe('reasoning on the Responses door', () => {
  it('streams no reasoning text as output text and counts reasoning tokens in the usage details', () => {
    const events = run(
      [
        { type: 'reasoning', text: 'Let me think.' },
        { type: 'reasoning', signature: 'sig' },
        { type: 'text', text: 'Four.' },
        { type: 'finish', finishReason: 'stop' },
      ],
      { inputTokens: 3, outputTokens: 9, reasoningTokens: 5 } as never,
    );
    const deltas = events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.data.delta);
    expect(deltas).toEqual(['Four.']);
    expect(responsesUsage({ inputTokens: 3, outputTokens: 9, reasoningTokens: 5 })).toMatchObject({
      output_tokens: 9,
      output_tokens_details: { reasoning_tokens: 5 },
    });
  });
});
