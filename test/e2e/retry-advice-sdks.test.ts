import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { type GatewayHarness, startGatewayHarness } from '../helpers/gateway-harness.js';

let h: GatewayHarness;
afterEach(async () => {
  await h?.close();
});

// The SDK clients as an application builds them: default retries unless a test says otherwise.
const openaiClient = (options: { maxRetries?: number } = {}) =>
  new OpenAI({ baseURL: `${h.url}/v1`, apiKey: 'caller-key', ...options });
const anthropicClient = (options: { maxRetries?: number } = {}) =>
  new Anthropic({ baseURL: h.url, apiKey: 'caller-key', ...options });
const upstreamCalls = () => h.openai.requests.length;
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (error: unknown) => error as { status?: number; headers?: Headers },
  );
const HELLO = { messages: [{ role: 'user' as const, content: 'hello there' }] };
const ASK = { model: 'p', max_tokens: 64, messages: [{ role: 'user' as const, content: 'hello there' }] };

describe('retry advice read by the OpenAI and Anthropic SDKs (default settings)', () => {
  it('openai-node: an exhausted chain costs exactly the gateway’s own attempts, no SDK retry', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b' } });
    h.openai.setDefault('*', { status: 503 });
    const error = await failure(openaiClient().chat.completions.create({ model: 'p', ...HELLO }));
    expect(error.status).toBe(503);
    expect(error.headers?.get('x-should-retry')).toBe('false');
    const attempts = Number(error.headers?.get('x-switchyard-attempts'));
    expect(attempts).toBeGreaterThan(0);
    expect(upstreamCalls()).toBe(attempts);
  });

  it('@anthropic-ai/sdk: an exhausted chain costs exactly the gateway’s own attempts, no SDK retry', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b' } });
    h.openai.setDefault('*', { status: 503 });
    const error = await failure(anthropicClient().messages.create(ASK));
    expect(error.status).toBe(503);
    const attempts = Number(error.headers?.get('x-switchyard-attempts'));
    expect(attempts).toBeGreaterThan(0);
    expect(upstreamCalls()).toBe(attempts);
  });

  it('openai-node: every route rate limited is retried once after Retry-After (retry-after-ms sent)', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    h.openai.setDefault('*', { status: 429, retryAfter: 1 });
    const started = Date.now();
    const { response, error } = await openaiClient({ maxRetries: 1 })
      .chat.completions.create({ model: 'p', ...HELLO })
      .withResponse()
      .then(
        (r) => ({ response: r.response, error: undefined }),
        (e: { status: number; headers: Headers }) => ({ response: undefined, error: e }),
      );
    expect(response).toBeUndefined();
    expect(error?.status).toBe(429);
    expect(error?.headers.get('retry-after')).toBe('1');
    expect(error?.headers.get('retry-after-ms')).toBe('1000');
    expect(error?.headers.has('x-should-retry')).toBe(false);
    // Two gateway runs of the chain: the SDK's first call and its one retry, a second apart.
    const perRun = Number(error?.headers.get('x-switchyard-attempts'));
    expect(upstreamCalls()).toBe(2 * perRun);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
  });

  it('@anthropic-ai/sdk: every route rate limited is retried once after Retry-After', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    h.openai.setDefault('*', { status: 429, retryAfter: 1 });
    const error = await failure(anthropicClient({ maxRetries: 1 }).messages.create(ASK));
    expect(error.status).toBe(429);
    const perRun = Number(error.headers?.get('x-switchyard-attempts'));
    expect(upstreamCalls()).toBe(2 * perRun);
  });

  it('a 400 is not retried by either SDK, and says x-should-retry: false', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    const bad = { model: 'p', messages: [{ role: 'wizard', content: 'hi' }] } as never;
    const fromOpenAI = await failure(openaiClient().chat.completions.create(bad));
    expect(fromOpenAI.status).toBe(400);
    expect(fromOpenAI.headers?.get('x-should-retry')).toBe('false');
    const fromAnthropic = await failure(anthropicClient().messages.create({ ...ASK, max_tokens: -1 }));
    expect(fromAnthropic.status).toBe(400);
    expect(fromAnthropic.headers?.get('x-should-retry')).toBe('false');
    expect(upstreamCalls()).toBe(0);
  });

  it('openai-node: a spend cap refused until the day resets is not retried (x-should-retry: false)', async () => {
    // Noon UTC: the reset is twelve hours away, far past the SDK's longest wait.
    const noon = Date.UTC(2026, 0, 15, 12);
    const key = 'sk-budget-0123456789';
    h = await startGatewayHarness(
      { p: { chain: 'a' } },
      {
        auth: { keys: { k: key } },
        clock: { now: () => noon },
        configure: (config) => {
          config.admission = { defaultKey: { usdPerDay: 0.01 } };
        },
      },
    );
    let sent = 0;
    const client = new OpenAI({
      baseURL: `${h.url}/v1`,
      apiKey: key,
      fetch: (input, init) => {
        sent += 1;
        return fetch(input, init);
      },
    });
    const error = await failure(client.chat.completions.create({ model: 'p', max_tokens: 2_000, ...HELLO }));
    expect(error.status).toBe(429);
    expect(error.headers?.get('x-should-retry')).toBe('false');
    expect(Number(error.headers?.get('retry-after'))).toBe(12 * 3600);
    expect(sent).toBe(1);
    expect(upstreamCalls()).toBe(0);
  });
});
