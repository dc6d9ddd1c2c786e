import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ChatModel, ChatRequest } from '../../../lambda/core/chat/chat-model.js';
import type { FailureClass } from '../../../lambda/core/failures/failure-class.js';
import { startFakeBedrock } from '../../../lambda/dev/fakes/bedrock-fake.js';
import type { FakeUpstream } from '../../../lambda/dev/fakes/fake-upstream.js';
import type { Fault } from '../../../lambda/dev/fakes/fault.js';
import { createBedrockChatModel } from '../../../lambda/families/bedrock/bedrock-chat-model.js';
import {
  attemptOptions,
  callOptions,
  drain,
  providerErrorOf,
  streamErrorOf,
  textOf,
  toolArguments,
} from './harness.js';

const UPSTREAM = 'meta.llama3-3-70b-instruct-v1:0';
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const ANSWER = `Hello from ${UPSTREAM}.`;
// 'Be brief.' + 'Say hello' = 18 chars -> 5 input tokens; the 43-char answer -> 11 output tokens.
const REQUEST: ChatRequest = {
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Say hello' },
  ],
};
const TOOLS: ChatRequest = { ...REQUEST, tools: [{ name: 'lookup', parameters: { type: 'object' } }] };

let fake: FakeUpstream;
let model: ChatModel;

beforeAll(async () => {
  fake = await startFakeBedrock();
  model = createBedrockChatModel({
    key: 'llama-br',
    provider: 'bedrock',
    model: UPSTREAM,
    region: 'us-east-1',
    endpoint: fake.url,
    credentials: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: SECRET },
  });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

/** Every call reaches the upstream exactly once: SDK retries are off (`maxAttempts: 1`). */
function expectOneRequest(): void {
  expect(fake.requests).toHaveLength(1);
}

describe('bedrock chat model: answers', () => {
  it('generates text with finish reason and usage', async () => {
    const result = await model.generate(REQUEST, callOptions());
    expect(result).toStrictEqual({
      content: ANSWER,
      toolCalls: [],
      finishReason: 'stop',
      usage: { inputTokens: 5, outputTokens: 11 },
    });
    expect(fake.requests).toEqual([
      expect.objectContaining({ model: UPSTREAM, stream: false, answeredStatus: 200 }),
    ]);
  });

  it('streams text pieces and ends with one finish carrying the usage sent after messageStop', async () => {
    const { events, error } = await drain(model.stream(REQUEST, callOptions()));
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe(ANSWER);
    expect(events.filter((e) => e.type === 'text').length).toBeGreaterThan(1);
    expect(events.filter((e) => e.type === 'finish')).toHaveLength(1);
    expect(events.at(-1)).toStrictEqual({
      type: 'finish',
      finishReason: 'stop',
      usage: { inputTokens: 5, outputTokens: 11 },
    });
    expect(fake.requests).toEqual([expect.objectContaining({ stream: true })]);
  });

  it('sends the output limit as inferenceConfig.maxTokens', async () => {
    const result = await model.generate({ ...REQUEST, maxTokens: 2 }, callOptions());
    expect(result).toMatchObject({ content: 'Hello fr', finishReason: 'length', usage: { outputTokens: 2 } });
  });

  it('round-trips a tool call: toolUse, then the toolResult on the next turn', async () => {
    fake.script(UPSTREAM, [{ toolCall: { name: 'lookup', arguments: { q: 'x' } } }, {}]);
    const first = await model.generate({ ...TOOLS, toolChoice: 'auto' }, callOptions());
    expect(first).toMatchObject({
      content: null,
      finishReason: 'tool_calls',
      toolCalls: [{ id: 'tooluse_fake_0', name: 'lookup', arguments: '{"q":"x"}' }],
    });
    const second = await model.generate(
      {
        ...TOOLS,
        messages: [
          ...REQUEST.messages,
          { role: 'assistant', content: null, toolCalls: first.toolCalls },
          { role: 'tool', toolCallId: 'tooluse_fake_0', content: '{"found":true}' },
        ],
      },
      callOptions(),
    );
    expect(second).toMatchObject({ finishReason: 'stop', content: ANSWER });
    expect(fake.requests.map((r) => r.answeredStatus)).toEqual([200, 200]);
  });

  it('streams a tool call: id and name at block start, then input deltas', async () => {
    fake.script(UPSTREAM, [{ toolCall: { name: 'lookup', arguments: { query: 'a fairly long value' } } }]);
    const { events, error } = await drain(model.stream(TOOLS, callOptions()));
    expect(error).toBeUndefined();
    expect(events[0]).toStrictEqual({ type: 'tool_call', index: 0, id: 'tooluse_fake_0', name: 'lookup' });
    expect(toolArguments(events)).toEqual(['{"query":"a fairly long value"}']);
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool_calls' });
  });
});

interface FailureCase {
  name: string;
  fault: Fault;
  failureClass: FailureClass;
  /** Checked when given; malformed bodies carry 200 or nothing depending on where parsing failed. */
  status?: number | undefined;
}

const FAILURES: FailureCase[] = [
  {
    name: 'ThrottlingException 429',
    fault: { status: 429, retryAfter: 2 },
    failureClass: 'rate_limited',
    status: 429,
  },
  {
    name: 'ServiceUnavailableException 503',
    fault: { status: 503 },
    failureClass: 'unavailable',
    status: 503,
  },
  {
    name: 'a ThrottlingException that says "Too many tokens" (a rate, not a context window)',
    fault: { status: 429, errorMessage: 'Too many tokens, please wait before trying again.' },
    failureClass: 'rate_limited',
    status: 429,
  },
  {
    name: 'ModelNotReadyException 429 (capacity, not our rate)',
    fault: { status: 429, errorCode: 'ModelNotReadyException', errorMessage: 'Model is not ready.' },
    failureClass: 'unavailable',
    status: 429,
  },
  {
    name: 'ServiceQuotaExceededException 400 (a quota, not a bad request)',
    fault: {
      status: 400,
      errorCode: 'ServiceQuotaExceededException',
      errorMessage: 'Too many tokens per day.',
    },
    failureClass: 'rate_limited',
    status: 400,
  },
  {
    name: 'ModelTimeoutException 408',
    fault: { status: 408, errorCode: 'ModelTimeoutException' },
    failureClass: 'timeout',
    status: 408,
  },
  { name: 'AccessDeniedException 403', fault: { status: 403 }, failureClass: 'upstream_auth', status: 403 },
  {
    name: 'ResourceNotFoundException 404',
    fault: { status: 404 },
    failureClass: 'model_not_found',
    status: 404,
  },
  {
    name: 'ValidationException 400',
    fault: { status: 400, errorMessage: 'temperature must be at most 1' },
    failureClass: 'invalid_request',
    status: 400,
  },
  {
    name: 'an input too long',
    fault: { status: 400, errorMessage: 'Input is too long for requested model.' },
    failureClass: 'context_length',
    status: 400,
  },
  { name: 'a reset before headers', fault: { reset: true }, failureClass: 'network', status: undefined },
  { name: 'an unparseable body', fault: { malformed: 'unparseable' }, failureClass: 'malformed_response' },
  { name: 'a schema-invalid body', fault: { malformed: 'schema' }, failureClass: 'malformed_response' },
];

function expected(row: FailureCase): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    provider: 'bedrock',
    model: 'llama-br',
    failureClass: row.failureClass,
  };
  if ('status' in row) fields.status = row.status;
  return fields;
}

describe('bedrock chat model: failures', () => {
  it.each(FAILURES)('generate turns $name into $failureClass', async (row) => {
    fake.script(UPSTREAM, [row.fault]);
    const error = await providerErrorOf(model.generate(REQUEST, callOptions()));
    expect(error).toMatchObject(expected(row));
    expect(error.message).not.toContain(SECRET);
    expectOneRequest();
  });

  it.each(FAILURES)('stream turns $name into $failureClass', async (row) => {
    fake.script(UPSTREAM, [row.fault]);
    const { events, error } = await streamErrorOf(model.stream(REQUEST, callOptions()));
    expect(events).toEqual([]);
    expect(error).toMatchObject(expected(row));
    expectOneRequest();
  });

  it('carries Retry-After as retryAfterMs', async () => {
    fake.script(UPSTREAM, [{ status: 429, retryAfter: 2 }]);
    const error = await providerErrorOf(model.generate(REQUEST, callOptions()));
    expect(error.retryAfterMs).toBe(2000);
  });

  it('passes the upstream message of an invalid request through', async () => {
    fake.script(UPSTREAM, [{ status: 400, errorMessage: 'temperature must be at most 1' }]);
    const error = await providerErrorOf(model.generate(REQUEST, callOptions()));
    expect(error.message).toBe('temperature must be at most 1');
  });

  it('rejects tool call arguments that are not a JSON object before sending anything', async () => {
    const error = await providerErrorOf(
      model.generate(
        {
          ...TOOLS,
          messages: [
            ...REQUEST.messages,
            { role: 'assistant', content: null, toolCalls: [{ id: 't', name: 'lookup', arguments: '[1]' }] },
          ],
        },
        callOptions(),
      ),
    );
    expect(error).toMatchObject({ failureClass: 'invalid_request', model: 'llama-br' });
    expect(fake.requests).toHaveLength(0);
  });
});

describe('bedrock chat model: streams that break', () => {
  it('yields the chunks before a cut, then throws network', async () => {
    fake.script(UPSTREAM, [{ cutAfterChunks: 2, chunkDelayMs: 5 }]);
    const { events, error } = await streamErrorOf(model.stream(REQUEST, callOptions()));
    expect(events).toEqual([
      { type: 'text', text: 'Hello' },
      { type: 'text', text: ' from' },
    ]);
    expect(error).toMatchObject({ failureClass: 'network', model: 'llama-br' });
    expectOneRequest();
  });

  it.each([
    {
      exception: 'ThrottlingException',
      fault: { cutAfterChunks: 2, status: 429 },
      failureClass: 'rate_limited',
    },
    {
      exception: 'ServiceUnavailableException',
      fault: { cutAfterChunks: 2, status: 503 },
      failureClass: 'unavailable',
    },
    {
      exception: 'ModelStreamErrorException',
      fault: { cutAfterChunks: 2, status: 424, errorCode: 'ModelStreamErrorException' },
      failureClass: 'unavailable',
    },
  ])(
    'yields the chunks before a $exception event, then throws $failureClass',
    async ({ fault, failureClass }) => {
      fake.script(UPSTREAM, [fault]);
      const { events, error } = await streamErrorOf(model.stream(REQUEST, callOptions()));
      expect(events.filter((e) => e.type === 'text')).toHaveLength(2);
      expect(error).toMatchObject({ failureClass, provider: 'bedrock', model: 'llama-br' });
    },
  );

  it('stops the upstream request when the consumer stops reading', async () => {
    fake.script(UPSTREAM, [{ chunkDelayMs: 50, text: 'one two three four five six seven eight' }]);
    for await (const event of model.stream(REQUEST, callOptions())) {
      if (event.type === 'text') break;
    }
    await vi.waitFor(() => expect(fake.requests[0]?.aborted).toBe(true));
  });
});

describe('bedrock chat model: timeouts and cancellation', () => {
  it('turns a hanging upstream into timeout when the attempt deadline passes, and aborts it', async () => {
    fake.script(UPSTREAM, [{ hang: true }]);
    const error = await providerErrorOf(model.generate(REQUEST, attemptOptions(100)));
    expect(error).toMatchObject({ failureClass: 'timeout', model: 'llama-br', status: undefined });
    await vi.waitFor(() => expect(fake.requests[0]?.aborted).toBe(true));
    expectOneRequest();
  });

  it('times out a stream whose first event never comes', async () => {
    fake.script(UPSTREAM, [{ hang: true }]);
    const { error } = await streamErrorOf(model.stream(REQUEST, attemptOptions(100)));
    expect(error.failureClass).toBe('timeout');
  });

  it('reports an abort of the caller signal (AbortSignal.timeout) as cancelled', async () => {
    fake.script(UPSTREAM, [{ hang: true }]);
    const error = await providerErrorOf(
      model.generate(REQUEST, callOptions({ signal: AbortSignal.timeout(100) })),
    );
    expect(error).toMatchObject({ failureClass: 'cancelled', provider: 'bedrock', model: 'llama-br' });
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
