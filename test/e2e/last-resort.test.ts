import { afterEach, describe, expect, it } from 'vitest';
import type { AnswerCache, CachedAnswer } from '../../lambda/core/last-resort/answer-cache.js';
import type { RequestLedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { createMemoryAnswerCache } from '../../lambda/stores/memory-answer-cache.js';
import { type GatewayHarness, memoryJobs, startGatewayHarness, waitFor } from '../helpers/gateway-harness.js';

let h: GatewayHarness;
afterEach(async () => {
  await h?.close();
});

const TEMPLATE = 'Our assistant is busy right now. Here is the help page: https://example.com/help';
const PROMPT = 'my secret order number is 4711';
const ask = (content = PROMPT, extra: Record<string, unknown> = {}) => ({
  model: 'p',
  messages: [{ role: 'user', content }],
  ...extra,
});
const lastRequest = () => h.requests().at(-1) as RequestLedgerEntry;

/** A memory cache that also remembers every key it was asked for. */
function spiedCache(): AnswerCache & { keys: string[] } {
  const inner = createMemoryAnswerCache({ maxEntries: 100, maxBytes: 32_768 });
  const keys: string[] = [];
  return {
    keys,
    get: (key, now) => {
      keys.push(key);
      return inner.get(key, now);
    },
    put: (key: string, answer: CachedAnswer, expiresAt: number) => {
      keys.push(key);
      return inner.put(key, answer, expiresAt);
    },
  };
}

describe('last resort: a template', () => {
  it('answers only after every route failed, labelled template, with the trail of what failed', async () => {
    h = await startGatewayHarness({
      p: { chain: 'a,b', lastResort: { type: 'template', content: TEMPLATE } },
    });
    h.openai.setDefault('model-a', { status: 503 });
    h.openai.setDefault('model-b', { status: 500 });
    const res = await h.post(ask());
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-degraded')).toBe('template');
    expect(res.headers.get('x-switchyard-model')).toBeNull();
    expect(res.headers.get('x-switchyard-route')).toBe('a:503,b:500,a:503');
    const body = await res.json();
    expect(body.choices[0]).toMatchObject({ message: { content: TEMPLATE }, finish_reason: 'stop' });
    expect(body.model).toBe('p');
    expect(h.requests()).toHaveLength(1);
    expect(lastRequest()).toMatchObject({
      reason: 'last_resort',
      degraded: 'template',
      attempts: 3,
      failureClass: 'unavailable',
    });
  });

  it('is not used while a route answers', async () => {
    h = await startGatewayHarness({
      p: { chain: 'a,b', lastResort: { type: 'template', content: TEMPLATE } },
    });
    h.openai.setDefault('model-a', { status: 503 });
    const res = await h.post(ask());
    expect(res.headers.get('x-switchyard-degraded')).toBeNull();
    expect(res.headers.get('x-switchyard-model')).toBe('b');
    expect(lastRequest()).toMatchObject({ reason: 'success' });
  });

  it('is not used for a request that was stopped (a bad request stays a 400)', async () => {
    h = await startGatewayHarness({
      p: { chain: 'a,b', lastResort: { type: 'template', content: TEMPLATE } },
    });
    h.openai.setDefault('model-a', { status: 400, errorMessage: 'bad temperature' });
    const res = await h.post(ask());
    expect(res.status).toBe(400);
    await waitFor(() => h.requests().length === 1);
    expect(lastRequest()).toMatchObject({ reason: 'stopped' });
  });

  it('a pipeline without one keeps today’s error', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b' } });
    h.openai.setDefault('*', { status: 503 });
    const res = await h.post(ask());
    expect(res.status).toBe(503);
    expect(res.headers.get('x-switchyard-degraded')).toBeNull();
    expect(lastRequest()).toMatchObject({ reason: 'exhausted' });
  });

  it('a stream keeps today’s error: the last resort answers plain requests only', async () => {
    h = await startGatewayHarness({ p: { chain: 'a', lastResort: { type: 'template', content: TEMPLATE } } });
    h.openai.setDefault('model-a', { status: 503 });
    const res = await h.post(ask(PROMPT, { stream: true }));
    expect(res.status).toBe(503);
  });

  it('a template that is not the requested JSON is not used: the failure stands', async () => {
    h = await startGatewayHarness({ p: { chain: 'a', lastResort: { type: 'template', content: TEMPLATE } } });
    h.openai.setDefault('model-a', { status: 503 });
    const res = await h.post(ask(PROMPT, { response_format: { type: 'json_object' } }));
    expect(res.status).toBe(503);
    expect(lastRequest()).toMatchObject({ reason: 'exhausted' });
  });
});

describe('last resort in a job', () => {
  it('a job the template answered succeeds, and its run says last_resort', async () => {
    const jobs = memoryJobs();
    h = await startGatewayHarness(
      { p: { chain: 'a', lastResort: { type: 'template', content: TEMPLATE } } },
      { jobs },
    );
    h.openai.setDefault('model-a', { status: 503 });
    const posted = await fetch(`${h.url}/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ask()),
    });
    const { id } = await posted.json();
    h.startWorker();
    await waitFor(() => jobs.store.all()[0]?.status === 'succeeded');
    const job = await (await fetch(`${h.url}/v1/jobs/${id}`)).json();
    expect(job.runs).toEqual([
      expect.objectContaining({ reason: 'last_resort', route: 'a:503,a:503,a:503' }),
    ]);
    expect(job.result.choices[0].message.content).toBe(TEMPLATE);
  });
});

describe('last resort: the last good answer for the same request', () => {
  const pipelines = { p: { chain: 'a,b', lastResort: { type: 'cache', ttlSeconds: 60 } } };

  it('serves the cached answer, finish_reason unchanged, only after every route failed', async () => {
    h = await startGatewayHarness(pipelines);
    h.openai.script('model-a', [{ text: 'The order ships Monday.', finishReason: 'length' }]);
    const good = await h.post(ask());
    expect(good.headers.get('x-switchyard-degraded')).toBeNull();

    h.openai.setDefault('*', { status: 503 });
    const res = await h.post(ask());
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-degraded')).toBe('cache');
    const body = await res.json();
    expect(body.choices[0]).toMatchObject({
      message: { content: 'The order ships Monday.' },
      finish_reason: 'length',
    });
    expect(body.model).toBe('a');
    expect(lastRequest()).toMatchObject({ reason: 'last_resort', degraded: 'cache' });
  });

  it('matches exactly: another message, or another parameter, is a miss and keeps the error', async () => {
    h = await startGatewayHarness(pipelines);
    await h.post(ask());
    h.openai.setDefault('*', { status: 503 });
    expect((await h.post(ask('another question'))).status).toBe(503);
    expect((await h.post(ask(PROMPT, { temperature: 0.2 }))).status).toBe(503);
    expect((await h.post(ask())).headers.get('x-switchyard-degraded')).toBe('cache');
  });

  it('keys the cache by a SHA-256 hash: no key holds prompt text', async () => {
    const cache = spiedCache();
    h = await startGatewayHarness(pipelines, { answers: cache });
    await h.post(ask());
    h.openai.setDefault('*', { status: 503 });
    await h.post(ask());
    expect(cache.keys).toHaveLength(2);
    expect(new Set(cache.keys).size).toBe(1);
    for (const key of cache.keys) {
      expect(key).toMatch(/^[0-9a-f]{64}$/);
      expect(key).not.toContain('4711');
    }
  });

  it('an expired answer is a miss', async () => {
    h = await startGatewayHarness({ p: { chain: 'a', lastResort: { type: 'cache', ttlSeconds: 1 } } });
    await h.post(ask());
    h.openai.setDefault('*', { status: 503 });
    await new Promise((r) => setTimeout(r, 1_050));
    expect((await h.post(ask())).status).toBe(503);
  });
});
