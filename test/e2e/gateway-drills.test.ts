import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptLedgerEntry, RequestLedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import {
  type GatewayHarness,
  HELLO,
  PRICE,
  startGatewayHarness,
  waitFor,
} from '../helpers/gateway-harness.js';

let h: GatewayHarness;
afterEach(async () => {
  await h?.close();
});

const lastRequest = () => h.requests().at(-1) as RequestLedgerEntry;

describe('failure drills over HTTP', () => {
  it('1. primary down before headers: the next model answers and the headers show the route', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b' } });
    h.openai.script('model-a', [{ reset: true }]);
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-model')).toBe('b');
    expect(res.headers.get('x-switchyard-attempts')).toBe('2');
    expect(res.headers.get('x-switchyard-route')).toBe('a:network,b:200');
    expect((await res.json()).model).toBe('b');
  });

  it('2. 429 with Retry-After: attempts stay within maxAttempts, the model cools, another route answers', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b,c', maxAttempts: 2 } });
    h.openai.setDefault('model-a', { status: 429, retryAfter: 30 });
    h.openai.setDefault('model-b', { status: 503 });
    const first = await h.post({ model: 'p', ...HELLO });
    expect(first.status).toBe(502);
    expect(first.headers.get('x-switchyard-attempts')).toBe('2');
    expect(h.received('model-c')).toBe(0);
    const second = await h.post({ model: 'p', ...HELLO });
    expect(second.status).toBe(200);
    expect(second.headers.get('x-switchyard-route')).toBe('b:503,c:200');
    expect(h.received('model-a')).toBe(1); // cooling: not called again within its Retry-After
    expect((h.attempts()[0] as AttemptLedgerEntry).retryAfterMs).toBe(30_000);
  });

  it('3. the caller cancels mid-request: the upstream call is aborted and nothing else is tried', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b' } });
    h.openai.script('model-a', [{ hang: true }]);
    const caller = new AbortController();
    const pending = h.client.chat.completions
      .create({ model: 'p', messages: [{ role: 'user', content: 'hi' }] }, { signal: caller.signal })
      .catch((e: unknown) => e);
    await waitFor(() => h.received('model-a') === 1);
    caller.abort();
    expect(await pending).toBeInstanceOf(OpenAI.APIUserAbortError);
    await waitFor(() => h.openai.requestsFor('model-a')[0]?.aborted === true);
    await waitFor(() => h.requests().length === 1);
    expect(lastRequest().reason).toBe('cancelled');
    expect(h.received('model-b')).toBe(0);
    expect(h.openai.requests).toHaveLength(1);
  });

  it('4. the stream is cut after output started: nothing is replayed, the caller gets an error event, the ledger says partial', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b' } });
    h.openai.script('model-a', [{ cutAfterChunks: 2, text: 'one two three four five' }]);
    const res = await h.post({ model: 'p', stream: true, ...HELLO });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-model')).toBe('a');
    const text = await res.text();
    const events = text
      .split('\n\n')
      .filter(Boolean)
      .map((e) => e.replace(/^data: /, ''));
    expect(events.at(-1)).toContain('"error"');
    expect(JSON.parse(events.at(-1) as string).error.code).toBe('stream_interrupted');
    expect(text).not.toContain('[DONE]');
    expect(text).toContain('one');
    await waitFor(() => h.requests().length === 1);
    expect(lastRequest()).toMatchObject({ reason: 'partial', model: 'a', stream: true });
    expect(h.attempts()).toEqual([
      expect.objectContaining({ model: 'a', phase: 'after_output', outcome: 'network' }),
    ]);
    expect(h.received('model-b')).toBe(0);
  });

  it('4b. the official client sees the cut stream as an error', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b' } });
    h.openai.script('model-a', [{ cutAfterChunks: 1 }]);
    const stream = await h.client.chat.completions.create({
      model: 'p',
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
    });
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? '');
      })(),
    ).rejects.toThrow(/failed after output started/);
    expect(seen.join('')).not.toBe('');
  });

  it('4c. an upstream that goes silent mid-stream is cut after the attempt timeout, with an error event', async () => {
    h = await startGatewayHarness({ p: { chain: 'quick,b' } });
    h.openai.script('model-quick', [{ text: 'one two three four', stallAfterChunks: 2 }]);
    const res = await h.post({ model: 'p', stream: true, ...HELLO });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('"content":"one"');
    expect(text).toContain('no output for 400 ms');
    expect(text).not.toContain('[DONE]');
    await waitFor(() => h.requests().length === 1);
    expect(lastRequest()).toMatchObject({ reason: 'partial', model: 'quick' });
    expect(h.attempts()).toEqual([
      expect.objectContaining({ model: 'quick', outcome: 'timeout', phase: 'after_output' }),
    ]);
    expect(h.received('model-b')).toBe(0);
  });

  it('5. an invalid request (upstream 400) passes through as 400; the second model never receives it', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b' } });
    h.openai.script('model-a', [{ status: 400, errorMessage: "Invalid 'messages[0].content': too odd." }]);
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error.message).toContain("Invalid 'messages[0].content'");
    expect(body.error.type).toBe('invalid_request_error');
    expect(h.received('model-b')).toBe(0);
    expect(lastRequest().reason).toBe('stopped');
  });

  it('6. every route fails: one terminal error naming the trail', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b,c' } });
    h.openai.setDefault('model-a', { status: 503 });
    h.openai.setDefault('model-b', { reset: true });
    h.openai.setDefault('model-c', { status: 500 });
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.status).toBe(502);
    const body = await res.json();
    expect(body.error.message).toBe(
      "all routes failed for pipeline 'p' after 3 attempt(s); route: a:503,b:network,c:500",
    );
    expect(res.headers.get('x-switchyard-route')).toBe('a:503,b:network,c:500');
    expect(lastRequest().reason).toBe('exhausted');
  });

  it('6b. every route rate limited: 429 with Retry-After', async () => {
    h = await startGatewayHarness({ p: { chain: '(a|b)' } });
    h.openai.setDefault('*', { status: 429, retryAfter: 7 });
    const res = await h.post({ model: 'p', ...HELLO });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect((await res.json()).error.type).toBe('rate_limit_error');
  });

  it('7. the ledger reconciles: attempt lines = x-switchyard-attempts = upstream requests; usage and cost add up', async () => {
    h = await startGatewayHarness({ p: { chain: '(a|b),c' } });
    h.openai.onRequest((model, index) =>
      model !== 'model-c' && index % 2 === 0 ? { status: 429 } : undefined,
    );
    let headerAttempts = 0;
    let answeredTokens = 0;
    for (let i = 0; i < 12; i++) {
      const { data, response } = await h.client.chat.completions
        .create({ model: 'p', messages: [{ role: 'user', content: `question number ${i}` }] })
        .withResponse();
      headerAttempts += Number(response.headers.get('x-switchyard-attempts'));
      answeredTokens += data.usage?.total_tokens ?? 0;
    }
    const attempts = h.attempts() as AttemptLedgerEntry[];
    const requests = h.requests() as RequestLedgerEntry[];
    expect(attempts).toHaveLength(headerAttempts);
    expect(h.openai.requests).toHaveLength(headerAttempts);
    expect(requests).toHaveLength(12);
    const attemptTokens = attempts.reduce(
      (n, a) => n + (a.usage ? a.usage.inputTokens + a.usage.outputTokens : 0),
      0,
    );
    const requestTokens = requests.reduce((n, r) => n + r.usage.inputTokens + r.usage.outputTokens, 0);
    expect(attemptTokens).toBe(answeredTokens);
    expect(requestTokens).toBe(answeredTokens);
    const expectedCost = attempts.reduce(
      (sum, a) =>
        sum +
        (a.usage
          ? (a.usage.inputTokens * PRICE.inputPerMTok + a.usage.outputTokens * PRICE.outputPerMTok) / 1e6
          : 0),
      0,
    );
    expect(requests.reduce((s, r) => s + r.costUsd, 0)).toBeCloseTo(expectedCost, 12);
    expect(expectedCost).toBeGreaterThan(0);
  });

  it('8. seed 000 over HTTP: a 429 cools both tier-1 routes, so the next requests go straight to c', async () => {
    h = await startGatewayHarness({ p: { chain: '(a|br),c' } });
    h.openai.setDefault('model-a', { status: 429 });
    h.bedrock.setDefault('bedrock-model', { status: 429 });
    const routes: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await h.post({ model: 'p', ...HELLO });
      expect(res.headers.get('x-switchyard-model')).toBe('c');
      routes.push(res.headers.get('x-switchyard-route') ?? '');
    }
    expect(routes[0]).toMatch(/^(a:429,br:429|br:429,a:429),c:200$/);
    // rateLimit.coolMs (5 s) has not passed: both account routes are still cooling.
    expect(routes[1]).toMatch(/^(!a:cooling,!br:cooling|!br:cooling,!a:cooling),c:200$/);
    expect(routes[2]).toBe(routes[1]);
    expect(h.received('model-a')).toBe(1);
    expect(h.received('bedrock-model')).toBe(1);
  });

  it('8b. seed 000 with cooling shorter than the requests: the pipeline breakers keep their rules', async () => {
    h = await startGatewayHarness(
      { p: { chain: '(a|br),c' } },
      { configure: (config) => Object.assign(config, { rateLimit: { coolMs: 1 } }) },
    );
    h.openai.setDefault('model-a', { status: 429 });
    h.bedrock.setDefault('bedrock-model', { status: 429 });
    const routes: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await h.post({ model: 'p', ...HELLO });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-switchyard-model')).toBe('c');
      routes.push(res.headers.get('x-switchyard-route') ?? '');
    }
    expect(routes[0]).toMatch(/^(a:429,br:429|br:429,a:429),c:200$/);
    expect(routes[1]).toMatch(/^(a:429,br:429|br:429,a:429),c:200$/);
    expect(routes[2]).toBe('c:200');
    expect(h.received('model-a')).toBe(2);
    expect(h.received('bedrock-model')).toBe(2);
    const breakers = await (await fetch(`${h.url}/v1/breakers?pipeline=p`)).json();
    const open = breakers.data
      .filter((b: { state: string }) => b.state === 'open')
      .map((b: { model: string }) => b.model);
    expect(open.sort()).toEqual(['a', 'br']);
  });

  it('8b. seed 000 over HTTP, streaming: failover happens before the first byte', async () => {
    h = await startGatewayHarness({ p: { chain: '(a|br),c' } });
    h.openai.setDefault('model-a', { status: 429 });
    h.bedrock.setDefault('bedrock-model', { status: 429 });
    const stream = await h.client.chat.completions.create({
      model: 'p',
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Hello from model-c.');
  });
});
