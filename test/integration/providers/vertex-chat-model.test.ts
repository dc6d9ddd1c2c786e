import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';
import { createCatalog } from '../../../lambda/core/catalog/catalog.js';
import type { ChatModel, ChatRequest } from '../../../lambda/core/chat/chat-model.js';
import type { FakeUpstream } from '../../../lambda/dev/fakes/fake-upstream.js';
import { startFakeOpenAI } from '../../../lambda/dev/fakes/openai-fake.js';
import { createRouteModels, type ProviderAccess } from '../../../lambda/families/create-route-models.js';
import { createFakeClock, type FakeClock } from '../../helpers/fake-clock.js';
import { type FakeTokenEndpoint, startFakeTokenEndpoint } from '../../helpers/fake-token-endpoint.js';
import { attemptOptions, callOptions, drain, providerErrorOf } from './harness.js';

const HELLO: ChatRequest = { messages: [{ role: 'user', content: 'Say hello' }] };
const UPSTREAM = 'google/gemini-2.0-flash-001';

let upstream: FakeUpstream;
let tokens: FakeTokenEndpoint;
/** A pass-through proxy in front of the fake upstream, recording each request's `Authorization`. */
let recorder: Server;
let recorderURL: string;
const sentAuthorization: Array<string | null> = [];
let firstKey: string;
let secondKey: string;

beforeAll(async () => {
  upstream = await startFakeOpenAI();
  tokens = await startFakeTokenEndpoint();
  firstKey = tokens.serviceAccount('first');
  secondKey = tokens.serviceAccount('second');
  const target = new URL(upstream.url);
  recorder = createServer((req, res) => {
    sentAuthorization.push(req.headers.authorization ?? null);
    const onward = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(onward);
  });
  await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
  recorderURL = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}${target.pathname}`;
});

afterAll(async () => {
  await new Promise((resolve) => recorder.close(resolve));
  await Promise.all([upstream.close(), tokens.close()]);
});

let clock: FakeClock;
/** The service-account key this process holds for provider `vertex`; tests change it. */
let held: string | undefined;
let gemini: ChatModel;
let geminiPro: ChatModel;

beforeEach(() => {
  upstream.reset();
  tokens.reset();
  sentAuthorization.length = 0;
  clock = createFakeClock();
  held = firstKey;
  const config = parseConfig({
    providers: {
      vertex: {
        type: 'vertex',
        project: 'switchyard-test',
        location: 'us-central1',
        baseURL: recorderURL,
        apiKeyEnv: 'VERTEX_SA_JSON',
        tokenTimeoutMs: 300,
      },
    },
    models: {
      gemini: { provider: 'vertex', model: UPSTREAM },
      'gemini-pro': { provider: 'vertex', model: 'google/gemini-2.5-pro' },
    },
  });
  const access: ProviderAccess = { apiKey: () => held, keyHint: () => 'VERTEX_SA_JSON' };
  const routes = createRouteModels(createCatalog(config).routes.values(), access, clock);
  gemini = routes.get('gemini')?.model as ChatModel;
  geminiPro = routes.get('gemini-pro')?.model as ChatModel;
});

const minutes = (n: number) => n * 60_000;

describe('vertex chat model: service-account tokens', () => {
  it('sends an access token minted from the service account, signed by its key and scoped to Vertex', async () => {
    const answer = await gemini.generate(HELLO, callOptions());
    expect(answer.content).toBe(`Hello from ${UPSTREAM}.`);
    expect(tokens.requests).toEqual([
      {
        issuer: 'first@switchyard-test.iam.gserviceaccount.com',
        scope: 'https://www.googleapis.com/auth/cloud-platform',
        signed: true,
        token: 'first-token-1',
      },
    ]);
    expect(sentAuthorization).toEqual(['Bearer first-token-1']);
    expect(upstream.requests.map((r) => r.model)).toEqual([UPSTREAM]);
  });

  it('reuses one token across calls and across the models of the provider', async () => {
    await gemini.generate(HELLO, callOptions());
    clock.advance(minutes(30));
    await geminiPro.generate(HELLO, callOptions());
    await drain(gemini.stream(HELLO, callOptions()));
    expect(tokens.requests).toHaveLength(1);
    expect(sentAuthorization).toEqual(Array(3).fill('Bearer first-token-1'));
  });

  it('sends the same token with embeddings (Vertex serves them on the same endpoint)', async () => {
    upstream.setDefault('text-embedding-005', { dimensions: 3 });
    const config = parseConfig({
      providers: {
        vertex: {
          type: 'vertex',
          project: 'switchyard-test',
          location: 'us-central1',
          baseURL: recorderURL,
          apiKeyEnv: 'K',
        },
      },
      models: { gecko: { provider: 'vertex', model: 'text-embedding-005', dimensions: 3 } },
    });
    const access: ProviderAccess = { apiKey: () => held, keyHint: () => 'K' };
    const gecko = createRouteModels(createCatalog(config).routes.values(), access, clock).get('gecko')?.model;
    const answer = await gecko?.embed?.(
      { input: ['a'], dimensions: 3, sendDimensions: false },
      callOptions(),
    );
    expect(answer?.vectors[0]).toHaveLength(3);
    expect(sentAuthorization).toEqual(['Bearer first-token-1']);
  });

  it('shares one token request among calls that start together', async () => {
    await Promise.all([1, 2, 3, 4].map(() => gemini.generate(HELLO, callOptions())));
    expect(tokens.requests).toHaveLength(1);
  });

  it('keeps the token until five minutes before it expires, then refreshes it in the background', async () => {
    await gemini.generate(HELLO, callOptions());
    // The token lives 3599 s from when it was asked for: its refresh margin starts at 3299 s.
    clock.advance(3_299_000 - 1);
    await gemini.generate(HELLO, callOptions());
    expect(tokens.requests).toHaveLength(1);
    clock.advance(1);
    await gemini.generate(HELLO, callOptions());
    await expect.poll(() => tokens.requests.length).toBe(2);
    await gemini.generate(HELLO, callOptions());
    // The call that started the refresh still went with the valid old token; the next one has the new.
    expect(sentAuthorization).toEqual([
      'Bearer first-token-1',
      'Bearer first-token-1',
      'Bearer first-token-1',
      'Bearer first-token-2',
    ]);
  });

  it('waits for a new token once the old one has expired', async () => {
    tokens.script({ expiresIn: 60 });
    await gemini.generate(HELLO, callOptions());
    clock.advance(60_000);
    await gemini.generate(HELLO, callOptions());
    expect(sentAuthorization).toEqual(['Bearer first-token-1', 'Bearer first-token-2']);
  });

  it('uses a rotated service-account key at the next call', async () => {
    await gemini.generate(HELLO, callOptions());
    held = secondKey;
    await gemini.generate(HELLO, callOptions());
    expect(sentAuthorization).toEqual(['Bearer first-token-1', 'Bearer second-token-2']);
  });

  it('keeps serving the valid token when a background refresh fails, and tries again after a pause', async () => {
    await gemini.generate(HELLO, callOptions());
    clock.advance(3_300_000);
    tokens.script({ status: 503 });
    await gemini.generate(HELLO, callOptions());
    await expect.poll(() => tokens.requests.length).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await gemini.generate(HELLO, callOptions());
    expect(tokens.requests).toHaveLength(2);
    clock.advance(300);
    await gemini.generate(HELLO, callOptions());
    await expect.poll(() => tokens.requests.length).toBe(3);
    expect(sentAuthorization).toEqual(Array(4).fill('Bearer first-token-1'));
  });
});

describe('vertex chat model: token failures', () => {
  it('is not_configured without a service-account key, and sends nothing', async () => {
    held = undefined;
    const error = await providerErrorOf(gemini.generate(HELLO, callOptions()));
    expect(error).toMatchObject({ failureClass: 'not_configured', provider: 'vertex', model: 'gemini' });
    expect(error.message).toContain('VERTEX_SA_JSON');
    expect(tokens.requests).toHaveLength(0);
    expect(upstream.requests).toHaveLength(0);
  });

  it.each([
    ['text that is not JSON', () => 'not json', 'is not JSON'],
    [
      'a key of another type',
      () => JSON.stringify({ ...JSON.parse(firstKey), type: 'authorized_user' }),
      "'s type",
    ],
    [
      'a key without its private key',
      () => JSON.stringify({ ...JSON.parse(firstKey), private_key: 'x' }),
      'private_key is not a PEM',
    ],
  ])('is not_configured for %s, naming the field and never the key', async (_label, key, problem) => {
    held = key();
    const error = await providerErrorOf(gemini.generate(HELLO, callOptions()));
    expect(error.failureClass).toBe('not_configured');
    expect(error.message).toContain(problem);
    expect(error.message).not.toContain('PRIVATE KEY');
    expect(upstream.requests).toHaveLength(0);
  });

  it.each([
    [400, 'invalid_grant'],
    [401, 'invalid_client'],
    [403, 'access_denied'],
  ])('is upstream_auth when the token endpoint refuses the key with %i %s', async (status, code) => {
    tokens.script({ status, error: code });
    const error = await providerErrorOf(gemini.generate(HELLO, callOptions()));
    expect(error).toMatchObject({ failureClass: 'upstream_auth', status });
    expect(error.message).toBe(`the token endpoint refused the service-account key (${status} ${code})`);
    expect(upstream.requests).toHaveLength(0);
  });

  it('is upstream_auth for a key the endpoint does not know (a deleted key)', async () => {
    held = JSON.stringify({
      ...JSON.parse(secondKey),
      client_email: 'gone@switchyard-test.iam.gserviceaccount.com',
    });
    const error = await providerErrorOf(gemini.generate(HELLO, callOptions()));
    expect(error).toMatchObject({ failureClass: 'upstream_auth', status: 400 });
  });

  it.each<[string, () => void, string]>([
    ['a 503 from the token endpoint', () => tokens.script({ status: 503 }), 'unavailable'],
    [
      'a 429 from the token endpoint',
      () => tokens.script({ status: 429, error: 'rate_limit_exceeded' }),
      'rate_limited',
    ],
    ['a token endpoint slower than tokenTimeoutMs', () => tokens.script({ hangMs: 1_000 }), 'timeout'],
    ['a 200 without an access token', () => tokens.script({ malformed: true }), 'malformed_response'],
  ])('classifies %s like any upstream failure', async (_label, fault, failureClass) => {
    fault();
    const error = await providerErrorOf(gemini.generate(HELLO, callOptions()));
    expect(error.failureClass).toBe(failureClass);
    expect(error.message).toMatch(/^token endpoint: /);
    expect(upstream.requests).toHaveLength(0);
  });

  it('is network when the token endpoint cannot be reached', async () => {
    held = JSON.stringify({ ...JSON.parse(firstKey), token_uri: 'http://127.0.0.1:9/token' });
    const error = await providerErrorOf(gemini.generate(HELLO, callOptions()));
    expect(error.failureClass).toBe('network');
  });

  it('ends with the attempt when the attempt runs out of time waiting for the token', async () => {
    tokens.script({ hangMs: 250 });
    const error = await providerErrorOf(gemini.generate(HELLO, attemptOptions(50)));
    expect(error.failureClass).toBe('timeout');
    // The token request went on and is used by the next attempt.
    await expect.poll(() => tokens.requests[0]?.token).toBe('first-token-1');
    await gemini.generate(HELLO, callOptions());
    expect(tokens.requests).toHaveLength(1);
  });

  it('refuses a token_uri over plain http to another host', async () => {
    held = JSON.stringify({ ...JSON.parse(firstKey), token_uri: 'http://tokens.example.com/token' });
    const error = await providerErrorOf(gemini.generate(HELLO, callOptions()));
    expect(error.failureClass).toBe('not_configured');
    expect(error.message).toContain('token_uri must be https://');
  });
});
