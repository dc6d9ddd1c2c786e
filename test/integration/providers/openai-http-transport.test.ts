/**
 * The OpenAI-compatible model's own `node:http` transport: keep-alive connections, encodings,
 * cuts and aborts, and the one promise that matters most: every upstream answer fails the same
 * `ProviderError` as it did through the openai SDK.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CallOptions, ChatRequest } from '../../../lambda/core/chat/chat-model.js';
import type { FakeUpstream } from '../../../lambda/dev/fakes/fake-upstream.js';
import { startFakeOpenAI } from '../../../lambda/dev/fakes/openai-fake.js';
import { createOpenAIChatModel } from '../../../lambda/families/openai-compatible/openai-chat-model.js';
import { OPENAI_COMPATIBLE_SIGNALS } from '../../../lambda/families/openai-compatible/openai-compatible-signals.js';
import {
  toOpenAIParams,
  toOpenAIStreamParams,
} from '../../../lambda/families/openai-compatible/openai-request.js';
import {
  createOpenAIStreamMapper,
  mapOpenAICompletion,
} from '../../../lambda/families/openai-compatible/openai-response.js';
import { SseDecoder } from '../../../lambda/families/openai-compatible/sse-events.js';
import { createAttemptCalls } from '../../../lambda/families/shared/attempt-calls.js';
import { createHttpAgents } from '../../../lambda/families/shared/http-transport.js';
import { attemptOptions, callOptions, drain, providerErrorOf, textOf } from './harness.js';

const UPSTREAM = 'gpt-4o-mini';
const REQUEST: ChatRequest = { messages: [{ role: 'user', content: 'Say hello' }] };

let fake: FakeUpstream;
const model = (baseURL = fake.url, agents = createHttpAgents()) =>
  createOpenAIChatModel({
    key: 'gpt-mini',
    provider: 'openai',
    model: UPSTREAM,
    baseURL,
    apiKey: 'sk-test',
    agents,
  });

beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

/** A throwaway `node:http` server for what the fake cannot show (sockets, encodings, odd answers). */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server: Server = createServer(handler);
  const sockets = new Set<number>();
  server.on('connection', (socket) => sockets.add(socket.remotePort ?? -1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    url,
    connections: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
let local: Awaited<ReturnType<typeof serve>> | undefined;
afterEach(async () => {
  await local?.close();
  local = undefined;
});

const COMPLETION = JSON.stringify({
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
});

describe('openai transport: requests and answers', () => {
  it('posts the body to {baseURL}/chat/completions with the key, and maps the answer', async () => {
    expect(await model(`${fake.url}/`).generate(REQUEST, callOptions())).toMatchObject({
      content: 'Hello from gpt-4o-mini.',
      finishReason: 'stop',
    });
    expect(fake.requests).toEqual([expect.objectContaining({ model: UPSTREAM, answeredStatus: 200 })]);
  });

  it('streams an answer chunk by chunk', async () => {
    fake.script(UPSTREAM, [{ chunkDelayMs: 2 }]);
    const { events, error } = await drain(model().stream(REQUEST, callOptions()));
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe('Hello from gpt-4o-mini.');
    expect(events.filter((e) => e.type === 'text').length).toBeGreaterThan(1);
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  it('decodes a gzip-encoded body', async () => {
    local = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(COMPLETION));
    });
    expect((await model(local.url).generate(REQUEST, callOptions())).content).toBe('ok');
  });

  it('reuses one keep-alive connection for calls one after another', async () => {
    local = await serve((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(COMPLETION),
    );
    const chat = model(local.url);
    for (let i = 0; i < 5; i++) await chat.generate(REQUEST, callOptions());
    expect(local.connections()).toBe(1);
  });

  it('opens one connection per concurrent call, then reuses them', async () => {
    local = await serve((_req, res) =>
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(COMPLETION), 20),
    );
    const chat = model(local.url);
    const burst = () => Promise.all([1, 2, 3].map(() => chat.generate(REQUEST, callOptions())));
    await burst();
    await burst();
    expect(local.connections()).toBe(3);
  });
});

describe('openai transport: the SSE decoder', () => {
  it('joins data lines, skips comments, and waits for the second half of a split \\r\\n', () => {
    const decoder = new SseDecoder();
    expect(decoder.push(': keep-alive\r\ndata: a\r')).toEqual([]);
    expect(decoder.push('\ndata: b\r\n')).toEqual([]);
    expect(decoder.push('\r\nevent: x\ndata:c\n\n')).toEqual([
      { event: null, data: 'a\nb' },
      { event: 'x', data: 'c' },
    ]);
  });

  it('joins a line that comes in many pieces, a held \r included', () => {
    const decoder = new SseDecoder();
    for (const piece of ['da', 'ta: ', 'abc', 'def\r']) expect(decoder.push(piece)).toEqual([]);
    expect(decoder.push('x')).toEqual([]); // the held \r ended the line; 'x' starts the next
    expect(decoder.push(': 1\n\n')).toEqual([{ event: null, data: 'abcdef' }]);
  });
});

describe('openai transport: cuts and aborts', () => {
  it('reports a refused connection as network', async () => {
    local = await serve((_req, res) => res.end());
    const url = local.url;
    await local.close();
    local = undefined;
    const error = await providerErrorOf(model(url).generate(REQUEST, callOptions()));
    expect(error).toMatchObject({
      failureClass: 'network',
      message: 'upstream network error (ECONNREFUSED)',
    });
  });

  it('reports a reset before the headers, and a body cut after them, as network', async () => {
    fake.script(UPSTREAM, [{ reset: true }, { cutAfterChunks: 1 }]);
    expect((await providerErrorOf(model().generate(REQUEST, callOptions()))).failureClass).toBe('network');
    expect((await providerErrorOf(model().generate(REQUEST, callOptions()))).failureClass).toBe('network');
  });

  it('sends nothing when the signal is already aborted', async () => {
    const error = await providerErrorOf(
      model().generate(REQUEST, callOptions({ signal: AbortSignal.abort() })),
    );
    expect(error.failureClass).toBe('cancelled');
    expect(fake.requests).toHaveLength(0);
  });

  it('cancels a hanging call when the caller goes away: cancelled, upstream aborted', async () => {
    fake.script(UPSTREAM, [{ hang: true }]);
    const caller = new AbortController();
    const pending = model().generate(REQUEST, callOptions({ signal: caller.signal }));
    await vi.waitFor(() => expect(fake.requests).toHaveLength(1));
    caller.abort();
    expect((await providerErrorOf(pending)).failureClass).toBe('cancelled');
    await vi.waitFor(() => expect(fake.requests[0]?.aborted).toBe(true));
  });

  it('times out a hanging call at the attempt deadline: timeout, upstream aborted', async () => {
    fake.script(UPSTREAM, [{ hang: true }]);
    const error = await providerErrorOf(model().generate(REQUEST, attemptOptions(100)));
    expect(error.failureClass).toBe('timeout');
    await vi.waitFor(() => expect(fake.requests[0]?.aborted).toBe(true));
  });

  it('aborts the upstream mid-stream when the caller goes away', async () => {
    fake.script(UPSTREAM, [{ chunkDelayMs: 50, text: 'one two three four five six seven eight' }]);
    const caller = new AbortController();
    const stream = model()
      .stream(REQUEST, callOptions({ signal: caller.signal }))
      [Symbol.asyncIterator]();
    await stream.next();
    caller.abort();
    await expect(stream.next()).rejects.toMatchObject({ failureClass: 'cancelled' });
    await vi.waitFor(() => expect(fake.requests[0]?.aborted).toBe(true));
  });

  it('closes the upstream request when the reader stops early', async () => {
    fake.script(UPSTREAM, [{ chunkDelayMs: 50, text: 'one two three four five six seven eight' }]);
    for await (const event of model().stream(REQUEST, callOptions())) {
      if (event.type === 'text') break;
    }
    await vi.waitFor(() => expect(fake.requests[0]?.aborted).toBe(true));
  });
});

/**
 * The reference: the model as it was before its own transport, the openai SDK (global fetch, no
 * retries) under the same attempt discipline and the same mappers.
 */
function sdkModel(baseURL: string) {
  const subject = { provider: 'openai', model: 'gpt-mini' };
  const client = new OpenAI({ apiKey: 'sk-test', baseURL, maxRetries: 0, logLevel: 'off' });
  const calls = createAttemptCalls(subject, Date.now, OPENAI_COMPATIBLE_SIGNALS);
  const options = (signal: AbortSignal) => ({ signal });
  return {
    generate: (request: ChatRequest, call: CallOptions) =>
      calls.generate(
        call,
        () => toOpenAIParams(request, UPSTREAM),
        (params, signal) => client.chat.completions.create(params, options(signal)),
        (body) => mapOpenAICompletion(body, subject),
      ),
    stream: (request: ChatRequest, call: CallOptions) =>
      calls.stream(
        call,
        () => toOpenAIStreamParams(request, UPSTREAM),
        (params, signal) => client.chat.completions.create(params, options(signal)),
        createOpenAIStreamMapper(subject),
      ),
  };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  (_req: IncomingMessage, res: ServerResponse) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
const sse = (text: string) => (_req: IncomingMessage, res: ServerResponse) =>
  res.writeHead(200, { 'content-type': 'text/event-stream' }).end(text);

describe('openai transport: the same failures as the openai SDK', () => {
  it.each<[string, boolean, (req: IncomingMessage, res: ServerResponse) => void]>([
    [
      'a 429 with Retry-After',
      false,
      json(429, { error: { message: 'Rate limit reached' } }, { 'retry-after': '2' }),
    ],
    [
      'a 429 with retry-after-ms',
      false,
      json(429, { error: { message: 'slow down' } }, { 'retry-after-ms': '1500' }),
    ],
    [
      'a 400 context window',
      false,
      json(400, { error: { message: 'too long', code: 'context_length_exceeded' } }),
    ],
    [
      'a 401',
      false,
      json(401, { error: { message: 'Incorrect API key provided', code: 'invalid_api_key' } }),
    ],
    ['a 404', false, json(404, { error: { message: 'The model does not exist', code: 'model_not_found' } })],
    [
      'a 503 with a text body',
      false,
      (_q, s) => s.writeHead(503, { 'content-type': 'text/plain' }).end('down'),
    ],
    ['a 502 with an empty body', false, (_q, s) => s.writeHead(502).end()],
    [
      'a 200 that is not JSON',
      false,
      (_q, s) => s.writeHead(200, { 'content-type': 'application/json' }).end('{nope'),
    ],
    ['a 200 without choices', false, json(200, { id: 'x' })],
    ['a 200 in plain text', false, (_q, s) => s.writeHead(200, { 'content-type': 'text/plain' }).end('hi')],
    [
      'a stream that answers 429',
      true,
      json(429, { error: { message: 'Rate limit reached' } }, { 'retry-after': '3' }),
    ],
    [
      'a stream with an error chunk',
      true,
      sse('data: {"error":{"message":"overloaded","type":"server_error"}}\n\n'),
    ],
    ['a stream with a chunk that is not JSON', true, sse('data: {nope\n\n')],
  ])('%s', async (_label, stream, handler) => {
    local = await serve(handler);
    const ours = stream
      ? (await drain(model(local.url).stream(REQUEST, callOptions()))).error
      : await model(local.url)
          .generate(REQUEST, callOptions())
          .catch((error: unknown) => error);
    const reference = sdkModel(local.url);
    const sdks = stream
      ? (await drain(reference.stream(REQUEST, callOptions()))).error
      : await reference.generate(REQUEST, callOptions()).catch((error: unknown) => error);
    const shape = (error: unknown) => {
      const { failureClass, status, retryAfterMs, message } = error as Record<string, unknown>;
      return { failureClass, status, retryAfterMs, message };
    };
    expect(sdks).toBeDefined();
    expect(shape(ours)).toEqual(shape(sdks));
  });
});
