import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ChatModel, ChatRequest } from '../../../lambda/core/chat/chat-model.js';
import type { FailureClass } from '../../../lambda/core/failures/failure-class.js';
import type { FakeUpstream } from '../../../lambda/dev/fakes/fake-upstream.js';
import type { Fault } from '../../../lambda/dev/fakes/fault.js';
import { startFakeOpenAI } from '../../../lambda/dev/fakes/openai-fake.js';
import { createOpenAIChatModel } from '../../../lambda/families/openai-compatible/openai-chat-model.js';
import {
  attemptOptions,
  callOptions,
  drain,
  providerErrorOf,
  streamErrorOf,
  textOf,
  toolArguments,
} from './harness.js';

const UPSTREAM = 'gpt-4o-mini';
const API_KEY = 'sk-test-0123456789abcdefSECRET';
// 'Be brief.' + 'Say hello' = 18 chars -> 5 prompt tokens; 'Hello from gpt-4o-mini.' = 23 chars -> 6.
const REQUEST: ChatRequest = {
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Say hello' },
  ],
};
const TOOLS: ChatRequest = { ...REQUEST, tools: [{ name: 'lookup', parameters: { type: 'object' } }] };

let fake: FakeUpstream;
let model: ChatModel;

function modelFor(upstream: string): ChatModel {
  return createOpenAIChatModel({
    key: 'gpt-mini',
    provider: 'openai',
    model: upstream,
    baseURL: fake.url,
    apiKey: API_KEY,
  });
}

beforeAll(async () => {
  fake = await startFakeOpenAI();
  model = modelFor(UPSTREAM);
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

/** Every call reaches the upstream exactly once: SDK retries are off. */
function expectOneRequest(): void {
  expect(fake.requests).toHaveLength(1);
}

describe('openai chat model: answers', () => {
  it('generates text with finish reason and usage', async () => {
    const result = await model.generate(REQUEST, callOptions());
    expect(result).toStrictEqual({
      content: 'Hello from gpt-4o-mini.',
      toolCalls: [],
      finishReason: 'stop',
      usage: { inputTokens: 5, outputTokens: 6 },
    });
    expect(fake.requests).toEqual([
      expect.objectContaining({ model: UPSTREAM, stream: false, answeredStatus: 200 }),
    ]);
  });

  it('streams text pieces and ends with one finish carrying usage', async () => {
    const { events, error } = await drain(model.stream(REQUEST, callOptions()));
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe('Hello from gpt-4o-mini.');
    expect(events.filter((e) => e.type === 'text').length).toBeGreaterThan(1);
    expect(events.filter((e) => e.type === 'finish')).toHaveLength(1);
    expect(events.at(-1)).toStrictEqual({
      type: 'finish',
      finishReason: 'stop',
      usage: { inputTokens: 5, outputTokens: 6 },
    });
    expect(fake.requests).toEqual([expect.objectContaining({ stream: true })]);
  });

  it.each([UPSTREAM, 'o4-mini'])('sends the output limit in the field %s accepts', async (upstream) => {
    const result = await modelFor(upstream).generate({ ...REQUEST, maxTokens: 2 }, callOptions());
    expect(result).toMatchObject({ content: 'Hello fr', finishReason: 'length', usage: { outputTokens: 2 } });
  });

  it('round-trips a tool call: answer, then the tool result on the next turn', async () => {
    fake.script(UPSTREAM, [{ toolCall: { name: 'lookup', arguments: { q: 'x' } } }, {}]);
    const first = await model.generate({ ...TOOLS, toolChoice: 'auto' }, callOptions());
    expect(first).toMatchObject({
      content: null,
      finishReason: 'tool_calls',
      toolCalls: [{ id: 'call_fake_0', name: 'lookup', arguments: '{"q":"x"}' }],
    });
    const second = await model.generate(
      {
        ...TOOLS,
        messages: [
          ...REQUEST.messages,
          { role: 'assistant', content: null, toolCalls: first.toolCalls },
          { role: 'tool', toolCallId: 'call_fake_0', content: '{"found":true}' },
        ],
      },
      callOptions(),
    );
    expect(second).toMatchObject({ finishReason: 'stop', content: 'Hello from gpt-4o-mini.' });
    expect(fake.requests.map((r) => r.answeredStatus)).toEqual([200, 200]);
  });

  it('streams a tool call: id and name first, then argument deltas', async () => {
    fake.script(UPSTREAM, [{ toolCall: { name: 'lookup', arguments: { query: 'a fairly long value' } } }]);
    const { events, error } = await drain(model.stream(TOOLS, callOptions()));
    expect(error).toBeUndefined();
    expect(events[0]).toMatchObject({ type: 'tool_call', index: 0, id: 'call_fake_0', name: 'lookup' });
    expect(toolArguments(events)).toEqual(['{"query":"a fairly long value"}']);
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool_calls' });
  });
});

interface FailureCase {
  name: string;
  fault: Fault;
  failureClass: FailureClass;
  status: number | undefined;
}

const FAILURES: FailureCase[] = [
  {
    name: '429 with Retry-After',
    fault: { status: 429, retryAfter: 2 },
    failureClass: 'rate_limited',
    status: 429,
  },
  { name: '503', fault: { status: 503 }, failureClass: 'unavailable', status: 503 },
  { name: '401', fault: { status: 401 }, failureClass: 'upstream_auth', status: 401 },
  { name: '404', fault: { status: 404 }, failureClass: 'model_not_found', status: 404 },
  {
    name: '400',
    fault: { status: 400, errorMessage: 'temperature must be at most 2' },
    failureClass: 'invalid_request',
    status: 400,
  },
  {
    name: 'context length',
    fault: { status: 400, errorCode: 'context_length_exceeded' },
    failureClass: 'context_length',
    status: 400,
  },
  { name: 'a reset before headers', fault: { reset: true }, failureClass: 'network', status: undefined },
  {
    name: 'an unparseable body',
    fault: { malformed: 'unparseable' },
    failureClass: 'malformed_response',
    status: undefined,
  },
  {
    name: 'a schema-invalid body',
    fault: { malformed: 'schema' },
    failureClass: 'malformed_response',
    status: undefined,
  },
];

describe('openai chat model: failures', () => {
  it.each(FAILURES)('generate turns $name into $failureClass', async ({ fault, failureClass, status }) => {
    fake.script(UPSTREAM, [fault]);
    const error = await providerErrorOf(model.generate(REQUEST, callOptions()));
    expect(error).toMatchObject({ provider: 'openai', model: 'gpt-mini', failureClass, status });
    expect(error.message).not.toContain(API_KEY);
    expectOneRequest();
  });

  it.each(FAILURES)('stream turns $name into $failureClass', async ({ fault, failureClass, status }) => {
    fake.script(UPSTREAM, [fault]);
    const { events, error } = await streamErrorOf(model.stream(REQUEST, callOptions()));
    expect(events).toEqual([]);
    expect(error).toMatchObject({ provider: 'openai', model: 'gpt-mini', failureClass, status });
    expectOneRequest();
  });

  it('carries Retry-After as retryAfterMs', async () => {
    fake.script(UPSTREAM, [{ status: 429, retryAfter: 2 }]);
    const error = await providerErrorOf(model.generate(REQUEST, callOptions()));
    expect(error.retryAfterMs).toBe(2000);
  });

  it('passes the upstream message of an invalid request through', async () => {
    fake.script(UPSTREAM, [{ status: 400, errorMessage: 'temperature must be at most 2' }]);
    const error = await providerErrorOf(model.generate(REQUEST, callOptions()));
    expect(error.message).toContain('temperature must be at most 2');
  });

  it('keeps the SDK error as the cause', async () => {
    fake.script(UPSTREAM, [{ status: 503 }]);
    const error = await providerErrorOf(model.generate(REQUEST, callOptions()));
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('turns a body cut mid-way into network', async () => {
    fake.script(UPSTREAM, [{ cutAfterChunks: 1 }]);
    const error = await providerErrorOf(model.generate(REQUEST, callOptions()));
    expect(error.failureClass).toBe('network');
    expectOneRequest();
  });
});

describe('openai chat model: streams that break', () => {
  it('yields the chunks before a cut, then throws network', async () => {
    fake.script(UPSTREAM, [{ cutAfterChunks: 2, chunkDelayMs: 5 }]);
    const { events, error } = await streamErrorOf(model.stream(REQUEST, callOptions()));
    expect(events).toEqual([
      { type: 'text', text: 'Hello' },
      { type: 'text', text: ' from' },
    ]);
    expect(error).toMatchObject({ failureClass: 'network', model: 'gpt-mini' });
    expectOneRequest();
  });

  it('yields the chunks before an in-stream error event, then throws its class', async () => {
    fake.script(UPSTREAM, [{ cutAfterChunks: 2, status: 503 }]);
    const { events, error } = await streamErrorOf(model.stream(REQUEST, callOptions()));
    expect(events.filter((e) => e.type === 'text')).toHaveLength(2);
    expect(error.failureClass).toBe('unavailable');
  });

  it('stops the upstream request when the consumer stops reading', async () => {
    fake.script(UPSTREAM, [{ chunkDelayMs: 50, text: 'one two three four five six seven eight' }]);
    for await (const event of model.stream(REQUEST, callOptions())) {
      if (event.type === 'text') break;
    }
    await vi.waitFor(() => expect(fake.requests[0]?.aborted).toBe(true));
  });
});

describe('openai chat model: timeouts and cancellation', () => {
  it('turns a hanging upstream into timeout when the attempt deadline passes, and aborts it', async () => {
    fake.script(UPSTREAM, [{ hang: true }]);
    const error = await providerErrorOf(model.generate(REQUEST, attemptOptions(100)));
    expect(error).toMatchObject({ failureClass: 'timeout', model: 'gpt-mini', status: undefined });
    await vi.waitFor(() => expect(fake.requests[0]?.aborted).toBe(true));
    expectOneRequest();
  });

  it('times out a stream whose first chunk never comes', async () => {
    fake.script(UPSTREAM, [{ hang: true }]);
    const { error } = await streamErrorOf(model.stream(REQUEST, attemptOptions(100)));
    expect(error.failureClass).toBe('timeout');
  });

  it('reports an abort of the caller signal (AbortSignal.timeout) as cancelled', async () => {
    fake.script(UPSTREAM, [{ hang: true }]);
    const error = await providerErrorOf(
      model.generate(REQUEST, callOptions({ signal: AbortSignal.timeout(100) })),
    );
    expect(error).toMatchObject({ failureClass: 'cancelled', provider: 'openai', model: 'gpt-mini' });
    await vi.waitFor(() => expect(fake.requests[0]?.aborted).toBe(true));
  });

  it('aborts a hanging request when the caller goes away', async () => {
    fake.script(UPSTREAM, [{ hang: true }]);
    const caller = new AbortController();
    const pending = model.generate(REQUEST, callOptions({ signal: caller.signal }));
    await vi.waitFor(() => expect(fake.requests).toHaveLength(1));
    caller.abort();
    const error = await providerErrorOf(pending);
    expect(error.failureClass).toBe('cancelled');
    await vi.waitFor(() => expect(fake.requests[0]?.aborted).toBe(true));
  });

  it('aborts a stream mid-way when the caller goes away', async () => {
    fake.script(UPSTREAM, [{ chunkDelayMs: 50, text: 'one two three four five six seven eight' }]);
    const caller = new AbortController();
    const seen: string[] = [];
    const { error } = await streamErrorOf(
      (async function* () {
        for await (const event of model.stream(REQUEST, callOptions({ signal: caller.signal }))) {
          if (event.type === 'text') seen.push(event.text);
          if (seen.length === 1) caller.abort();
          yield event;
        }
      })(),
    );
    expect(seen).toHaveLength(1);
    expect(error.failureClass).toBe('cancelled');
    await vi.waitFor(() => expect(fake.requests[0]?.aborted).toBe(true));
  });

  it('fails at once, without a request, when the signal is already aborted', async () => {
    const error = await providerErrorOf(
      model.generate(REQUEST, callOptions({ signal: AbortSignal.abort() })),
    );
    expect(error.failureClass).toBe('cancelled');
    expect(fake.requests).toHaveLength(0);
  });
});
