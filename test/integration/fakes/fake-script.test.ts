import http from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startFakeBedrock } from '../../../lambda/dev/fakes/bedrock-fake.js';
import type { FakeUpstream } from '../../../lambda/dev/fakes/fake-upstream.js';
import { type Fault, InvalidFaultError } from '../../../lambda/dev/fakes/fault.js';
import { startFakeOpenAI } from '../../../lambda/dev/fakes/openai-fake.js';
import { runFakeUpstreams } from '../../../lambda/dev/fakes/run-fake-upstreams.js';

let fake: FakeUpstream;
let root: string;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  root = fake.url.replace(/\/v1$/, '');
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

/** One chat request; resolves with the HTTP status. */
async function chat(model: string): Promise<number> {
  const res = await fetch(`${fake.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
  await res.arrayBuffer();
  return res.status;
}

async function control(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${root}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

describe('fake script', () => {
  it('consumes the model queue in order, then the model default, then the global default', async () => {
    fake.script('a', [{ status: 429 }, { status: 500 }]);
    fake.setDefault('a', { status: 503 });
    fake.setDefault('*', { status: 502 });
    const statuses = [await chat('a'), await chat('a'), await chat('a'), await chat('a'), await chat('b')];
    expect(statuses).toEqual([429, 500, 503, 503, 502]);
    expect(fake.requestsFor('a').map((r) => r.answeredStatus)).toEqual([429, 500, 503, 503]);
  });

  it('appends to a queue scripted twice and answers 200 once it is empty', async () => {
    fake.script('a', [{ status: 429 }]);
    fake.script('a', [{ status: 503 }]);
    expect([await chat('a'), await chat('a'), await chat('a')]).toEqual([429, 503, 200]);
  });

  it('asks the onRequest hook after the queue and before the defaults, with a per-model request index', async () => {
    const calls: Array<[string, number]> = [];
    fake.onRequest((model, index) => {
      calls.push([model, index]);
      return index >= 2 ? { status: 429 } : undefined;
    });
    fake.setDefault('a', { status: 503 });
    fake.script('a', [{ status: 500 }]);
    const statuses = [await chat('a'), await chat('a'), await chat('a'), await chat('b')];
    expect(statuses).toEqual([500, 503, 429, 200]);
    // The scripted request is not shown to the hook, but it still counts in the index.
    expect(calls).toEqual([
      ['a', 1],
      ['a', 2],
      ['b', 0],
    ]);
  });

  it('records the applied fault and arrival order in the log', async () => {
    fake.script('a', [{ status: 429, retryAfter: 2 }]);
    await chat('a');
    await chat('b');
    expect(fake.requests).toEqual([
      expect.objectContaining({
        seq: 0,
        model: 'a',
        fault: { status: 429, retryAfter: 2 },
        answeredStatus: 429,
      }),
      expect.objectContaining({ seq: 1, model: 'b', fault: {}, answeredStatus: 200 }),
    ]);
    expect(fake.requests[0]?.at).toBeGreaterThan(0);
  });

  it('clears queues, defaults, hook and log on reset', async () => {
    fake.script('a', [{ status: 429 }]);
    fake.setDefault('*', { status: 503 });
    fake.onRequest(() => ({ status: 500 }));
    await chat('b');
    fake.reset();
    expect(fake.requests).toHaveLength(0);
    expect(await chat('a')).toBe(200);
    expect(fake.requests[0]?.seq).toBe(0);
  });

  it.each<[string, unknown]>([
    ['a status out of range', { status: 700 }],
    ['an unknown key', { retry_after: 5 }],
    ['an error code without an error status', { errorCode: 'rate_limit_exceeded' }],
    ['a negative latency', { latencyMs: -1 }],
  ])('refuses %s when scripted', (_label, fault) => {
    expect(() => fake.script('a', [fault as Fault])).toThrow(InvalidFaultError);
    expect(() => fake.setDefault('a', fault as Fault)).toThrow(InvalidFaultError);
  });

  it('keeps at least logLimit recent requests', async () => {
    const small = await startFakeOpenAI({ logLimit: 2 });
    try {
      for (let i = 0; i < 5; i++) {
        await fetch(`${small.url}/chat/completions`, {
          method: 'POST',
          body: JSON.stringify({ model: 'a', messages: [{ role: 'user', content: 'hi' }] }),
        }).then((r) => r.arrayBuffer());
      }
      expect(small.requests.length).toBeGreaterThanOrEqual(2);
      expect(small.requests.length).toBeLessThanOrEqual(4);
      expect(small.requests.at(-1)?.seq).toBe(4);
    } finally {
      await small.close();
    }
  });
});

describe('fake control endpoints', () => {
  it('scripts faults over HTTP', async () => {
    const res = await control('POST', '/_fake/script', {
      model: 'a',
      faults: [{ status: 429, retryAfter: 5 }],
    });
    expect(res).toEqual({ status: 200, json: { ok: true, model: 'a', queued: 1 } });
    expect(await chat('a')).toBe(429);
  });

  it('sets a default over HTTP', async () => {
    expect((await control('POST', '/_fake/default', { model: '*', fault: { status: 503 } })).status).toBe(
      200,
    );
    expect(await chat('x')).toBe(503);
  });

  it('lists received requests, optionally for one model, without logging control calls', async () => {
    await chat('a');
    await chat('b');
    const all = await control('GET', '/_fake/requests');
    expect(all.json).toMatchObject({ requests: [{ model: 'a' }, { model: 'b' }], pending: {} });
    const onlyB = await control('GET', '/_fake/requests?model=b');
    expect(onlyB.json).toMatchObject({
      requests: [{ model: 'b', stream: false, answeredStatus: 200, aborted: false }],
    });
    expect(fake.requests).toHaveLength(2);
  });

  it('resets over HTTP', async () => {
    fake.script('a', [{ status: 429 }]);
    expect((await control('POST', '/_fake/reset')).status).toBe(200);
    expect(await chat('a')).toBe(200);
  });

  it.each<[string, string, unknown, string]>([
    [
      'a fault with a bad status',
      '/_fake/script',
      { model: 'a', faults: [{ status: 'x' }] },
      'faults.0.status',
    ],
    ['a missing model', '/_fake/script', { faults: [] }, 'model'],
    ['an unknown fault key', '/_fake/default', { model: 'a', fault: { hangs: true } }, 'hangs'],
    ['a body that is not JSON', '/_fake/script', '{nope', 'not valid JSON'],
  ])('answers 400 with a clear message to %s', async (_label, path, body, mention) => {
    const res = await control('POST', path, body);
    expect(res.status).toBe(400);
    expect((res.json as { error: { message: string } }).error.message).toContain(mention);
  });

  it('answers 404 with the list of routes to an unknown control route', async () => {
    const res = await control('GET', '/_fake/nope');
    expect(res.status).toBe(404);
    expect((res.json as { error: { message: string } }).error.message).toContain('POST /_fake/script');
  });

  it('offers the same control surface on the Bedrock fake', async () => {
    const bedrock = await startFakeBedrock();
    try {
      await fetch(`${bedrock.url}/_fake/script`, {
        method: 'POST',
        body: JSON.stringify({ model: 'm:0', faults: [{ status: 429 }] }),
      }).then((r) => r.arrayBuffer());
      const res = await fetch(`${bedrock.url}/model/m%3A0/converse`, {
        method: 'POST',
        body: JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'hi' }] }] }),
      });
      expect(res.status).toBe(429);
      expect(res.headers.get('x-amzn-errortype')).toBe('ThrottlingException');
      expect(await res.json()).toEqual({ message: expect.any(String) });
    } finally {
      await bedrock.close();
    }
  });
});

describe('fake lifecycle', () => {
  it('closes with a hanging request and a keep-alive socket outstanding', async () => {
    const local = await startFakeOpenAI();
    const agent = new http.Agent({ keepAlive: true });
    const post = (): Promise<number> =>
      new Promise((resolve, reject) => {
        const req = http.request(`${local.url}/chat/completions`, { method: 'POST', agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(JSON.stringify({ model: 'a', messages: [{ role: 'user', content: 'hi' }] }));
      });
    try {
      expect(await post()).toBe(200); // leaves an idle keep-alive socket
      local.script('a', [{ hang: true }]);
      const hanging = post().catch((e: unknown) => e);
      await vi.waitFor(() => expect(local.requests).toHaveLength(2));
      await local.close();
      expect(await hanging).toBeInstanceOf(Error);
      // The fake shutting down is not a client abort.
      expect(local.requests[1]).toMatchObject({ aborted: false, answeredStatus: null });
      await local.close(); // idempotent
    } finally {
      agent.destroy();
    }
  });

  it('starts the three fakes and prints their URLs and a working curl example', async () => {
    const lines: string[] = [];
    const running = await runFakeUpstreams({ log: (line) => lines.push(line) });
    try {
      const text = lines.join('\n');
      expect(text).toContain(running.openai.url);
      expect(text).toContain(running.bedrock.url);
      expect(text).toContain(running.anthropic.url);
      const curl = lines.find((l) => l.includes('curl') && l.includes('429'));
      const match = curl?.match(/-X POST (\S+) .* -d '(.+)'/);
      expect(match).toBeTruthy();
      const res = await fetch(match?.[1] ?? '', { method: 'POST', body: match?.[2] });
      expect(res.status).toBe(200);
      const next = await fetch(`${running.openai.url}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(next.status).toBe(429);
      expect(next.headers.get('retry-after')).toBe('5');
    } finally {
      await running.close();
    }
  });
});
