/**
 * The Vercel AI SDK and LangChain JS decide whether to retry by status, not by `x-should-retry`:
 * with the setting docs/http-api.md#retry-advice names (`maxRetries: 0`) an exhausted chain costs
 * exactly the gateway's own attempts, and `maxRetries: 1` keeps one wait-and-retry on a 429 whose
 * `Retry-After` is short. What their defaults cost is measured by `npm run bench:retry-amplification`.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { ChatOpenAI } from '@langchain/openai';
import { generateText } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { type GatewayHarness, startGatewayHarness } from '../helpers/gateway-harness.js';

let h: GatewayHarness;
afterEach(async () => {
  await h?.close();
});

const vercel = () => createOpenAI({ baseURL: `${h.url}/v1`, apiKey: 'caller-key' });
const langchain = (maxRetries: number) =>
  new ChatOpenAI({ model: 'p', apiKey: 'caller-key', maxRetries, configuration: { baseURL: `${h.url}/v1` } });
const rejects = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the request to fail');
    },
    () => undefined,
  );
const upstreamCalls = () => h.openai.requests.length;
const chainRuns = () => h.requests().length;

describe('clients that decide by status, with the documented maxRetries', () => {
  it('Vercel AI SDK, maxRetries: 0: an exhausted chain runs once, on /v1/responses and on /v1/chat/completions', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b' } });
    h.openai.setDefault('*', { status: 503 });
    await rejects(generateText({ model: vercel()('p'), prompt: 'hello there', maxRetries: 0 }));
    expect(chainRuns()).toBe(1);
    await rejects(generateText({ model: vercel().chat('p'), prompt: 'hello there', maxRetries: 0 }));
    expect(chainRuns()).toBe(2);
    expect(upstreamCalls()).toBeGreaterThan(0);
    expect(h.requests().every((r) => r.reason !== 'success')).toBe(true);
  });

  it('Vercel AI SDK, maxRetries: 1: every route rate limited is retried once, after Retry-After', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    h.openai.setDefault('*', { status: 429, retryAfter: 1 });
    const started = Date.now();
    await rejects(generateText({ model: vercel()('p'), prompt: 'hello there', maxRetries: 1 }));
    expect(chainRuns()).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
  });

  it('LangChain ChatOpenAI, maxRetries: 0: an exhausted chain runs once', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b' } });
    h.openai.setDefault('*', { status: 503 });
    await rejects(langchain(0).invoke('hello there'));
    expect(chainRuns()).toBe(1);
    expect(upstreamCalls()).toBeGreaterThan(0);
  });

  it('LangChain ChatOpenAI, maxRetries: 1: every route rate limited is retried once', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    h.openai.setDefault('*', { status: 429, retryAfter: 1 });
    await rejects(langchain(1).invoke('hello there'));
    expect(chainRuns()).toBe(2);
  });

  it('LangChain ChatOpenAI with its default retries: a spend cap refused until the day resets is sent once', async () => {
    // Noon UTC: Retry-After is twelve hours, past the 60 s LangChain waits for.
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
    const chat = new ChatOpenAI({
      model: 'p',
      apiKey: key,
      maxTokens: 2_000,
      configuration: {
        baseURL: `${h.url}/v1`,
        fetch: (input: RequestInfo | URL, init?: RequestInit) => {
          sent += 1;
          return fetch(input, init);
        },
      },
    });
    const error = await chat.invoke('hello there').then(
      () => undefined,
      (e: { status?: number }) => e,
    );
    expect(error?.status).toBe(429);
    expect(sent).toBe(1);
    expect(upstreamCalls()).toBe(0);
  });
});
