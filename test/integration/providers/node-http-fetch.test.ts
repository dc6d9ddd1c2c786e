import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../../lambda/core/catalog/parse-config.js';
import type { ChatRequest } from '../../../lambda/core/chat/chat-model.js';
import type { FakeUpstream } from '../../../lambda/dev/fakes/fake-upstream.js';
import { startFakeOpenAI } from '../../../lambda/dev/fakes/openai-fake.js';
import { createOpenAIChatModel } from '../../../lambda/providers/index.js';
import { createNodeHttpFetch } from '../../../lambda/providers/shared/node-http-fetch.js';
import { envProviderAccess } from '../../../lambda/wiring/env-provider-access.js';
import { attemptOptions, callOptions, drain, providerErrorOf, textOf } from './harness.js';

const UPSTREAM = 'gpt-4o-mini';
const REQUEST: ChatRequest = { messages: [{ role: 'user', content: 'Say hello' }] };
const BODY = JSON.stringify({ model: UPSTREAM, messages: [{ role: 'user', content: 'Say hello' }] });

let fake: FakeUpstream;
const nodeFetch = createNodeHttpFetch();
const completions = () => `${fake.url}/chat/completions`;
const post = (init: RequestInit = {}) =>
  nodeFetch(completions(), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: BODY,
    ...init,
  });
const model = () =>
  createOpenAIChatModel({
    key: 'gpt-mini',
    provider: 'openai',
    model: UPSTREAM,
    baseURL: fake.url,
    apiKey: 'sk-test',
    fetch: nodeFetch,
  });

beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

/** A throwaway `node:http` server for what the fake cannot show (sockets, encodings, redirects). */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server: Server = createServer(handler);
  const sockets = new Set<number>();
  server.on('connection', (socket) => sockets.add(socket.remotePort ?? -1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
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

describe('node-http fetch: answers', () => {
  it('sends method, headers and body, and answers with status, headers, url and a JSON body', async () => {
    const res = await post({ headers: { 'content-type': 'application/json', 'x-request-id': 'abc' } });
    expect(res).toBeInstanceOf(Response);
    expect(res.status).toBe(200);
    expect(res.ok).toBe(true);
    expect(res.url).toBe(completions());
    expect(res.headers.get('content-type')).toBe('application/json');
    const body = await res.json();
    expect(body.choices[0].message.content).toBe('Hello from gpt-4o-mini.');
    expect(res.bodyUsed).toBe(true);
    expect(fake.requests).toEqual([expect.objectContaining({ model: UPSTREAM, answeredStatus: 200 })]);
  });

  it('answers an error status as a response, not a rejection', async () => {
    fake.script(UPSTREAM, [{ status: 429, retryAfter: 7 }]);
    const res = await post();
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect((await res.json()).error).toBeDefined();
  });

  it('takes a Request object as input', async () => {
    const request = new Request(completions(), { method: 'POST', body: BODY });
    const res = await nodeFetch(request);
    expect(res.status).toBe(200);
    expect(fake.requests[0]?.model).toBe(UPSTREAM);
  });

  it('serves the real openai client: a completion, an error with Retry-After, a stream', async () => {
    const chat = model();
    expect(await chat.generate(REQUEST, callOptions())).toMatchObject({
      content: 'Hello from gpt-4o-mini.',
      finishReason: 'stop',
    });

    fake.script(UPSTREAM, [{ status: 429, retryAfter: 2 }]);
    const limited = await providerErrorOf(chat.generate(REQUEST, callOptions()));
    expect(limited).toMatchObject({ failureClass: 'rate_limited', status: 429, retryAfterMs: 2000 });

    fake.script(UPSTREAM, [{ chunkDelayMs: 2 }]);
    const { events, error } = await drain(chat.stream(REQUEST, callOptions()));
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe('Hello from gpt-4o-mini.');
    expect(events.filter((e) => e.type === 'text').length).toBeGreaterThan(1);
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  it('streams server-sent events chunk by chunk as a web ReadableStream', async () => {
    fake.script(UPSTREAM, [{ chunkDelayMs: 20 }]);
    const res = await post({ body: JSON.stringify({ ...JSON.parse(BODY), stream: true }) });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('data: ');
    expect(fake.requests[0]?.answeredStatus).toBe(200);
    let rest = '';
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      rest += new TextDecoder().decode(next.value);
    }
    expect(rest).toContain('data: [DONE]');
  });

  it('decodes a gzip-encoded body', async () => {
    local = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync('{"ok":true}'));
    });
    expect(await (await nodeFetch(local.url)).json()).toEqual({ ok: true });
  });

  it('gives 204 and HEAD answers a null body', async () => {
    local = await serve((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    const noContent = await nodeFetch(local.url, { method: 'POST', body: '{}' });
    expect(noContent.status).toBe(204);
    expect(noContent.body).toBeNull();
    expect((await nodeFetch(local.url, { method: 'HEAD' })).body).toBeNull();
  });

  it('follows a 307 and a 308 with method and body, and drops the credential across origins', async () => {
    const seen: { url?: string; method?: string; body: string; auth?: string }[] = [];
    const recording =
      (answer: (req: IncomingMessage, res: ServerResponse) => void) =>
      (req: IncomingMessage, res: ServerResponse) => {
        let body = '';
        req.on('data', (c: Buffer) => {
          body += c.toString();
        });
        req.on('end', () => {
          seen.push({ url: req.url, method: req.method, body, auth: req.headers.authorization });
          answer(req, res);
        });
      };
    const other = await serve(recording((_req, res) => res.end('moved')));
    local = await serve(
      recording((req, res) => {
        if (req.url === '/start') res.writeHead(307, { location: '/next' }).end();
        else res.writeHead(308, { location: `${other.url}/away` }).end();
      }),
    );
    const res = await nodeFetch(`${local.url}/start`, {
      method: 'POST',
      body: 'payload',
      headers: { authorization: 'Bearer secret' },
    });
    expect(await res.text()).toBe('moved');
    expect(res.url).toBe(`${other.url}/away`);
    expect(seen).toEqual([
      { url: '/start', method: 'POST', body: 'payload', auth: 'Bearer secret' },
      { url: '/next', method: 'POST', body: 'payload', auth: 'Bearer secret' },
      { url: '/away', method: 'POST', body: 'payload', auth: undefined },
    ]);
    await other.close();
  });

  it('turns a POST answered with 303 into a GET without a body', async () => {
    const seen: string[] = [];
    local = await serve((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers['content-length'] ?? '-'}`);
      req.resume();
      if (req.url === '/form') res.writeHead(303, { location: '/done' }).end();
      else res.end('done');
    });
    const res = await nodeFetch(`${local.url}/form`, { method: 'POST', body: 'x=1' });
    expect(await res.text()).toBe('done');
    expect(seen).toEqual(['POST /form 3', 'GET /done -']);
  });
});

describe('node-http fetch: connections', () => {
  it('reuses one keep-alive connection for requests one after another', async () => {
    local = await serve((_req, res) => res.end('ok'));
    for (let i = 0; i < 5; i++) expect(await (await nodeFetch(local.url)).text()).toBe('ok');
    expect(local.connections()).toBe(1);
  });

  it('opens one connection per concurrent request, then reuses them', async () => {
    local = await serve((_req, res) => setTimeout(() => res.end('ok'), 20));
    const server = local;
    const burst = () => Promise.all([1, 2, 3].map(async () => (await nodeFetch(server.url)).text()));
    await burst();
    await burst();
    expect(local.connections()).toBe(3);
  });

  it('rejects a refused connection as fetch failed, with the socket error as cause', async () => {
    local = await serve((_req, res) => res.end());
    const url = local.url;
    await local.close();
    local = undefined;
    const error = await nodeFetch(url).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNREFUSED' } });
  });

  it('rejects a reset before the headers as fetch failed, which the model reports as network', async () => {
    fake.script(UPSTREAM, [{ reset: true }]);
    const error = await post().catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
    fake.script(UPSTREAM, [{ reset: true }]);
    expect((await providerErrorOf(model().generate(REQUEST, callOptions()))).failureClass).toBe('network');
  });

  it('errors the body as terminated when it is cut after the headers, which the model reports as network', async () => {
    fake.script(UPSTREAM, [{ cutAfterChunks: 1 }]);
    const res = await post();
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toMatchObject({ name: 'TypeError', message: 'terminated' });
    fake.script(UPSTREAM, [{ cutAfterChunks: 1 }]);
    expect((await providerErrorOf(model().generate(REQUEST, callOptions()))).failureClass).toBe('network');
  });
});

describe('node-http fetch: aborts', () => {
  it('rejects at once, without a request, when the signal is already aborted', async () => {
    const error = await post({ signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(fake.requests).toHaveLength(0);
  });

  it('rejects with the abort reason mid-request and the upstream sees the request aborted', async () => {
    fake.script(UPSTREAM, [{ hang: true }]);
    const controller = new AbortController();
    const pending = post({ signal: controller.signal }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(fake.requests).toHaveLength(1));
    const reason = new DOMException('caller left', 'AbortError');
    controller.abort(reason);
    expect(await pending).toBe(reason);
    await vi.waitFor(() => expect(fake.requests[0]?.aborted).toBe(true));
  });

  it('errors the body mid-stream on abort and the upstream sees the request aborted', async () => {
    fake.script(UPSTREAM, [{ chunkDelayMs: 50, text: 'one two three four five six seven eight' }]);
    const controller = new AbortController();
    const res = await post({
      signal: controller.signal,
      body: JSON.stringify({ ...JSON.parse(BODY), stream: true }),
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
    await vi.waitFor(() => expect(fake.requests[0]?.aborted).toBe(true));
  });

  it('closes the upstream request when the reader cancels the body', async () => {
    fake.script(UPSTREAM, [{ chunkDelayMs: 50, text: 'one two three four five six seven eight' }]);
    const res = await post({ body: JSON.stringify({ ...JSON.parse(BODY), stream: true }) });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await reader.cancel();
    await vi.waitFor(() => expect(fake.requests[0]?.aborted).toBe(true));
  });

  it('lets the openai client cancel a hanging call: cancelled, upstream aborted', async () => {
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
});

describe('local gateway provider access', () => {
  it('gives OpenAI-compatible providers the node-http fetch by default', () => {
    const config = parseConfig({
      providers: { p: { type: 'openai', baseURL: 'http://127.0.0.1:1/v1' } },
      models: { m: { provider: 'p', model: 'm' } },
      pipelines: {},
    });
    const access = envProviderAccess(config, {});
    expect(access.fetch).toBeTypeOf('function');
    expect(access.fetch).not.toBe(globalThis.fetch);
  });
});
