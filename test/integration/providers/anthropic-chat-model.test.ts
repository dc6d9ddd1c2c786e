import { createServer as createHttpServer } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ChatModel, ChatRequest } from '../../../lambda/core/chat/chat-model.js';
import type { FailureClass } from '../../../lambda/core/failures/failure-class.js';
import { ProviderError } from '../../../lambda/core/failures/provider-error.js';
import { startFakeAnthropic } from '../../../lambda/dev/fakes/anthropic-fake.js';
import type { FakeUpstream } from '../../../lambda/dev/fakes/fake-upstream.js';
import type { Fault } from '../../../lambda/dev/fakes/fault.js';
import { createAnthropicChatModel } from '../../../lambda/families/anthropic/anthropic-chat-model.js';
import {
  attemptOptions,
  callOptions,
  drain,
  providerErrorOf,
  streamErrorOf,
  textOf,
  toolArguments,
} from './harness.js';

const UPSTREAM = 'claude-haiku-4-5';
const KEY = ['sk', 'ant', 'api03', 'Xq7vR2mT9wL4nB8cK1zF6yH3dJ5sA0pE'].join('-');
const ANSWER = `Hello from ${UPSTREAM}.`;
// 'Be brief.' + 'Say hello' = 18 chars -> 5 input tokens; the 27-char answer -> 7 output tokens.
const REQUEST: ChatRequest = {
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Say hello' },
  ],
};
const TOOLS: ChatRequest = {
  ...REQUEST,
  tools: [{ name: 'lookup', description: 'Look it up', parameters: { type: 'object' } }],
};

let fake: FakeUpstream;
let model: ChatModel;

const create = (overrides: Partial<Parameters<typeof createAnthropicChatModel>[0]> = {}) =>
  createAnthropicChatModel({
    key: 'claude-fast',
    provider: 'anthropic',
    model: UPSTREAM,
    baseURL: fake.url,
    apiKey: KEY,
    defaultMaxTokens: 1024,
    ...overrides,
  });

beforeAll(async () => {
  fake = await startFakeAnthropic();
  model = create();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

/** What the fake received as the request body of the nth call. */
const sent = (n = 0) => fake.requests[n]?.body as Record<string, unknown>;

describe('anthropic chat model: requests', () => {
  it('sends system messages as the system field and the configured max_tokens when the request has none', async () => {
    await model.generate(REQUEST, callOptions());
    expect(sent()).toStrictEqual({
      model: UPSTREAM,
      max_tokens: 1024,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Say hello' }],
    });
  });

  it("sends the request's own output limit and stop sequences", async () => {
    await model.generate({ ...REQUEST, maxTokens: 64, stop: ['END'] }, callOptions());
    expect(sent()).toMatchObject({ max_tokens: 64, stop_sequences: ['END'] });
  });

  it('joins several system messages, wherever they stand, and merges consecutive turns of one role', async () => {
    await model.generate(
      {
        messages: [
          { role: 'system', content: 'One.' },
          { role: 'user', content: 'a' },
          { role: 'system', content: 'Two.' },
          { role: 'user', content: 'b' },
        ],
      },
      callOptions(),
    );
    expect(sent()).toMatchObject({
      system: 'One.\n\nTwo.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
        },
      ],
    });
  });

  it('sends tools with their input schema and maps required to any', async () => {
    await model.generate({ ...TOOLS, toolChoice: 'required' }, callOptions());
    expect(sent()).toMatchObject({
      tools: [{ name: 'lookup', description: 'Look it up', input_schema: { type: 'object' } }],
      tool_choice: { type: 'any' },
    });
  });

  it('never retries: one upstream request per call, whatever the answer', async () => {
    fake.script(UPSTREAM, [{ status: 529 }]);
    await providerErrorOf(model.generate(REQUEST, callOptions()));
    expect(fake.requests).toHaveLength(1);
  });
});

describe('anthropic chat model: answers', () => {
  it('generates text with finish reason and usage', async () => {
    const result = await model.generate(REQUEST, callOptions());
    expect(result).toStrictEqual({
      content: ANSWER,
      toolCalls: [],
      finishReason: 'stop',
      usage: { inputTokens: 5, outputTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
  });

  it('counts prompt-cache reads and writes in the input and says how many they were', async () => {
    fake.script(UPSTREAM, [
      { cacheReadTokens: 3, cacheWriteTokens: 1 },
      { cacheReadTokens: 3, cacheWriteTokens: 1 },
    ]);
    const result = await model.generate(REQUEST, callOptions());
    expect(result.usage).toStrictEqual({
      inputTokens: 5,
      outputTokens: 7,
      cacheReadTokens: 3,
      cacheWriteTokens: 1,
    });
    const { events } = await drain(model.stream(REQUEST, callOptions()));
    expect(events.at(-1)).toMatchObject({ usage: result.usage });
  });

  it('streams text pieces and ends with one finish carrying the usage', async () => {
    const { events, error } = await drain(model.stream(REQUEST, callOptions()));
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe(ANSWER);
    expect(events.filter((e) => e.type === 'text').length).toBeGreaterThan(1);
    expect(events.filter((e) => e.type === 'finish')).toHaveLength(1);
    expect(events.at(-1)).toStrictEqual({
      type: 'finish',
      finishReason: 'stop',
      usage: { inputTokens: 5, outputTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    expect(sent()).toMatchObject({ stream: true, max_tokens: 1024 });
  });

  it('maps max_tokens and stop_sequence stop reasons', async () => {
    const short = await model.generate({ ...REQUEST, maxTokens: 2 }, callOptions());
    expect(short).toMatchObject({ content: 'Hello fr', finishReason: 'length' });
    const stopped = await model.generate({ ...REQUEST, stop: [' from'] }, callOptions());
    expect(stopped).toMatchObject({ content: 'Hello', finishReason: 'stop' });
  });

  it('round-trips a tool call: tool_use, then the tool_result on the next turn', async () => {
    fake.script(UPSTREAM, [{ toolCall: { name: 'lookup', arguments: { q: 'x' } } }, {}]);
    const first = await model.generate({ ...TOOLS, toolChoice: 'auto' }, callOptions());
    expect(first).toMatchObject({
      content: null,
      finishReason: 'tool_calls',
      toolCalls: [{ id: 'toolu_fake_0', name: 'lookup', arguments: '{"q":"x"}' }],
    });
    const second = await model.generate(
      {
        ...TOOLS,
        messages: [
          ...REQUEST.messages,
          { role: 'assistant', content: null, toolCalls: first.toolCalls },
          { role: 'tool', toolCallId: 'toolu_fake_0', content: '{"found":true}' },
        ],
      },
      callOptions(),
    );
    expect(second).toMatchObject({ finishReason: 'stop', content: ANSWER });
    expect(sent(1).messages).toStrictEqual([
      { role: 'user', content: 'Say hello' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_fake_0', name: 'lookup', input: { q: 'x' } }],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_fake_0', content: '{"found":true}' }],
      },
    ]);
  });

  it('streams a tool call: id and name at block start, then input deltas', async () => {
    fake.script(UPSTREAM, [{ toolCall: { name: 'lookup', arguments: { query: 'a fairly long value' } } }]);
    const { events, error } = await drain(model.stream(TOOLS, callOptions()));
    expect(error).toBeUndefined();
    expect(events[0]).toStrictEqual({ type: 'tool_call', index: 0, id: 'toolu_fake_0', name: 'lookup' });
    expect(toolArguments(events)).toEqual(['{"query":"a fairly long value"}']);
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool_calls' });
  });

  it('reports the response headers of a plain answer as its first byte', async () => {
    const onFirstByte = vi.fn();
    await model.generate(REQUEST, callOptions({ onFirstByte }));
    expect(onFirstByte).toHaveBeenCalledTimes(1);
  });
});

interface FailureCase {
  name: string;
  fault: Fault;
  failureClass: FailureClass;
  status?: number | undefined;
}

const FAILURES: FailureCase[] = [
  {
    name: 'rate_limit_error 429',
    fault: { status: 429, retryAfter: 2 },
    failureClass: 'rate_limited',
    status: 429,
  },
  { name: 'overloaded_error 529', fault: { status: 529 }, failureClass: 'unavailable', status: 529 },
  { name: 'api_error 500', fault: { status: 500 }, failureClass: 'unavailable', status: 500 },
  { name: 'authentication_error 401', fault: { status: 401 }, failureClass: 'upstream_auth', status: 401 },
  { name: 'permission_error 403', fault: { status: 403 }, failureClass: 'upstream_auth', status: 403 },
  { name: 'not_found_error 404', fault: { status: 404 }, failureClass: 'model_not_found', status: 404 },
  {
    name: 'invalid_request_error 400',
    fault: { status: 400, errorMessage: 'messages: roles must alternate' },
    failureClass: 'invalid_request',
    status: 400,
  },
  {
    name: 'a prompt that is too long',
    fault: { status: 400, errorMessage: 'prompt is too long: 210000 tokens > 200000 maximum' },
    failureClass: 'context_length',
    status: 400,
  },
  { name: 'a reset before headers', fault: { reset: true }, failureClass: 'network', status: undefined },
  { name: 'an unparseable body', fault: { malformed: 'unparseable' }, failureClass: 'malformed_response' },
  { name: 'a schema-invalid body', fault: { malformed: 'schema' }, failureClass: 'malformed_response' },
];

function expected(row: FailureCase): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    provider: 'anthropic',
    model: 'claude-fast',
    failureClass: row.failureClass,
  };
  if ('status' in row) fields.status = row.status;
  return fields;
}

describe('anthropic chat model: failures', () => {
  it.each(FAILURES)('generate turns $name into $failureClass', async (row) => {
    fake.script(UPSTREAM, [row.fault]);
    const error = await providerErrorOf(model.generate(REQUEST, callOptions()));
    expect(error).toMatchObject(expected(row));
    expect(error.message).not.toContain(KEY);
    expect(fake.requests).toHaveLength(1);
  });

  it.each(FAILURES)('stream turns $name into $failureClass', async (row) => {
    fake.script(UPSTREAM, [row.fault]);
    const { events, error } = await streamErrorOf(model.stream(REQUEST, callOptions()));
    expect(events).toEqual([]);
    expect(error).toMatchObject(expected(row));
    expect(fake.requests).toHaveLength(1);
  });

  it('carries Retry-After as retryAfterMs', async () => {
    fake.script(UPSTREAM, [{ status: 429, retryAfter: 2 }]);
    const error = await providerErrorOf(model.generate(REQUEST, callOptions()));
    expect(error.retryAfterMs).toBe(2000);
  });

  it("passes the upstream's own words of an invalid request through, out of the envelope", async () => {
    fake.script(UPSTREAM, [
      { status: 400, errorMessage: 'prompt is too long: 210000 tokens > 200000 maximum' },
    ]);
    const error = await providerErrorOf(model.generate(REQUEST, callOptions()));
    expect(error.message).toBe('prompt is too long: 210000 tokens > 200000 maximum');
  });

  it('fails as not_configured, before any request, when the key source has no key', async () => {
    const keyless = create({
      apiKey: () => {
        throw new ProviderError({
          provider: 'anthropic',
          model: 'claude-fast',
          failureClass: 'not_configured',
          message: "no API key for provider 'anthropic' (set ANTHROPIC_API_KEY)",
        });
      },
    });
    const error = await providerErrorOf(keyless.generate(REQUEST, callOptions()));
    expect(error).toMatchObject({
      failureClass: 'not_configured',
      message: "no API key for provider 'anthropic' (set ANTHROPIC_API_KEY)",
    });
    expect(fake.requests).toHaveLength(0);
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
    expect(error).toMatchObject({ failureClass: 'invalid_request', model: 'claude-fast' });
    expect(fake.requests).toHaveLength(0);
  });
});

describe('anthropic chat model: streams that break', () => {
  it('yields the text before a cut, then throws network', async () => {
    fake.script(UPSTREAM, [{ cutAfterChunks: 2, chunkDelayMs: 5 }]);
    const { events, error } = await streamErrorOf(model.stream(REQUEST, callOptions()));
    expect(textOf(events)).toBe('Hello from');
    expect(error).toMatchObject({ failureClass: 'network', model: 'claude-fast' });
  });

  it.each([
    { type: 'overloaded_error', fault: { cutAfterChunks: 2, status: 529 }, failureClass: 'unavailable' },
    { type: 'rate_limit_error', fault: { cutAfterChunks: 2, status: 429 }, failureClass: 'rate_limited' },
  ])('yields the text before an $type event, then throws $failureClass', async ({ fault, failureClass }) => {
    fake.script(UPSTREAM, [fault]);
    const { events, error } = await streamErrorOf(model.stream(REQUEST, callOptions()));
    expect(textOf(events)).toBe('Hello from');
    expect(error).toMatchObject({ failureClass, provider: 'anthropic', model: 'claude-fast' });
  });

  it('stops the upstream request when the consumer stops reading', async () => {
    fake.script(UPSTREAM, [{ chunkDelayMs: 50, text: 'one two three four five six seven eight' }]);
    for await (const event of model.stream(REQUEST, callOptions())) {
      if (event.type === 'text') break;
    }
    await vi.waitFor(() => expect(fake.requests[0]?.aborted).toBe(true));
  });
});

describe('anthropic chat model: timeouts and cancellation', () => {
  it('turns a hanging upstream into timeout when the attempt deadline passes, and aborts it', async () => {
    fake.script(UPSTREAM, [{ hang: true }]);
    const error = await providerErrorOf(model.generate(REQUEST, attemptOptions(100)));
    expect(error).toMatchObject({ failureClass: 'timeout', model: 'claude-fast', status: undefined });
    await vi.waitFor(() => expect(fake.requests[0]?.aborted).toBe(true));
  });

  it('times out a stream whose first event never comes', async () => {
    fake.script(UPSTREAM, [{ hang: true }]);
    const { error } = await streamErrorOf(model.stream(REQUEST, attemptOptions(100)));
    expect(error.failureClass).toBe('timeout');
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

  it('keeps the connect phase of a connection not up within connectMs (a TLS handshake nobody answers)', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const mute = create({ baseURL: `https://127.0.0.1:${port}`, connectMs: 150 });
      const error = await providerErrorOf(mute.generate(REQUEST, callOptions()));
      expect(error).toMatchObject({ failureClass: 'timeout', timeoutPhase: 'connect' });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

describe('anthropic chat model: connections', () => {
  it('reuses one keep-alive connection for calls one after another, streamed or not', async () => {
    let connections = 0;
    const local = createHttpServer((req, res) => {
      let body = '';
      req.on('data', (piece) => {
        body += piece;
      });
      req.on('end', () => {
        const streamed = (JSON.parse(body) as { stream?: boolean }).stream === true;
        const usage = { input_tokens: 1, output_tokens: 1 };
        if (!streamed) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({ content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', usage }),
          );
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const events = [
          { type: 'message_start', message: { usage } },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } },
          { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage },
          { type: 'message_stop' },
        ];
        res.end(events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(''));
      });
    });
    local.on('connection', () => {
      connections++;
    });
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
    const { port } = local.address() as { port: number };
    try {
      const near = create({ baseURL: `http://127.0.0.1:${port}` });
      expect((await near.generate(REQUEST, callOptions())).content).toBe('ok');
      expect(textOf((await drain(near.stream(REQUEST, callOptions()))).events)).toBe('ok');
      expect((await near.generate(REQUEST, callOptions())).content).toBe('ok');
      expect(connections).toBe(1);
    } finally {
      local.closeAllConnections();
      await new Promise((resolve) => local.close(resolve));
    }
  });
});
