import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptLedgerEntry, RequestLedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { fakeVector } from '../../lambda/dev/fakes/openai-embeddings.js';
import {
  bearer,
  type GatewayHarness,
  HELLO,
  PRICE,
  startGatewayHarness,
} from '../helpers/gateway-harness.js';

let h: GatewayHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Embedding models on the OpenAI-compatible fake: e1 and e2 share a space of 8, e3 has 16. */
async function embeddingGateway(options: { admission?: Record<string, unknown>; auth?: boolean } = {}) {
  const harness = await startGatewayHarness(
    { emb: { chain: 'e1,e2' }, chat: { chain: 'a' } },
    {
      ...(options.auth ? { auth: { keys: { alice: 'sk-alice-0123456789' } } } : {}),
      configure: (config) => {
        Object.assign(config.models, {
          e1: { provider: 'fake', model: 'model-e1', dimensions: 8, price: PRICE },
          e2: { provider: 'fake', model: 'model-e2', dimensions: 8, price: PRICE },
          e3: { provider: 'fake', model: 'model-e3', dimensions: 16 },
        });
        if (options.admission) config.admission = options.admission;
      },
    },
  );
  harness.openai.setDefault('model-e1', { dimensions: 8 });
  harness.openai.setDefault('model-e2', { dimensions: 8 });
  harness.openai.setDefault('model-e3', { dimensions: 16 });
  h = harness;
  return harness;
}

const embed = (harness: GatewayHarness, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${harness.url}/v1/embeddings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

const expected = (model: string, text: string, length = 8) =>
  fakeVector(`${model}\u0000${JSON.stringify(text)}`, length);

describe('POST /v1/embeddings', () => {
  it('works with the official openai client unchanged (it asks for base64 and decodes it)', async () => {
    const harness = await embeddingGateway();
    const { data: answer, response } = await harness.client.embeddings
      .create({ model: 'emb', input: ['first text', 'second text'] })
      .withResponse();
    expect(answer.model).toBe('e1');
    expect(answer.data.map((d) => d.index)).toEqual([0, 1]);
    for (const [i, text] of ['first text', 'second text'].entries()) {
      const vector = answer.data[i]?.embedding ?? [];
      expect(vector).toHaveLength(8);
      expected('model-e1', text).forEach((n, j) => {
        expect(vector[j]).toBeCloseTo(n, 6);
      });
    }
    expect(answer.usage).toEqual({ prompt_tokens: 6, total_tokens: 6 });
    expect(response.headers.get('x-switchyard-model')).toBe('e1');
    expect(response.headers.get('x-switchyard-route')).toBe('e1:200');
    expect(response.headers.get('x-switchyard-attempts')).toBe('1');
    expect(response.headers.get('x-request-id')).toBeTruthy();
  });

  it('answers floats for encoding_format float (the default of the API), one input as a list of one', async () => {
    const harness = await embeddingGateway();
    const res = await embed(harness, { model: 'emb', input: 'just one', encoding_format: 'float' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { object: string; data: { object: string; embedding: number[] }[] };
    expect(body.object).toBe('list');
    expect(body.data).toEqual([
      { object: 'embedding', index: 0, embedding: expected('model-e1', 'just one') },
    ]);
  });

  it('falls back to a model of the same space, with the trail in the headers and the ledger', async () => {
    const harness = await embeddingGateway();
    harness.openai.script('model-e1', [{ status: 429, retryAfter: 1, dimensions: 8 }]);
    const res = await embed(harness, { model: 'emb', input: ['hello'] }, { 'x-request-id': 'emb-1' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-route')).toBe('e1:429,e2:200');
    expect(res.headers.get('x-switchyard-model')).toBe('e2');
    const body = (await res.json()) as { model: string; data: { embedding: number[] }[] };
    expect(body.model).toBe('e2');
    expect(body.data[0]?.embedding).toEqual(expected('model-e2', 'hello'));
    const attempts = harness.attempts() as AttemptLedgerEntry[];
    expect(attempts.map((a) => [a.model, a.outcome])).toEqual([
      ['e1', 'rate_limited'],
      ['e2', 'ok'],
    ]);
    const request = harness.requests()[0] as RequestLedgerEntry;
    // The ledger's id is the gateway's (the header's); the caller's x-request-id is only its label.
    expect(res.headers.get('x-request-id')).toBe('emb-1');
    expect(request).toMatchObject({
      requestId: res.headers.get('x-switchyard-request-id'),
      clientRequestId: 'emb-1',
      pipeline: 'emb',
      reason: 'success',
      model: 'e2',
      usage: { inputTokens: 2, outputTokens: 0 },
      stream: false,
    });
    // Priced like any attempt: 2 input tokens at $2 per million.
    expect(request.costUsd).toBeCloseTo(0.000004, 9);
  });

  it('falls back when a model answers vectors of another length: they would corrupt the index', async () => {
    const harness = await embeddingGateway();
    harness.openai.script('model-e1', [{ dimensions: 12 }]);
    const res = await embed(harness, { model: 'emb', input: ['hello'] });
    expect(res.headers.get('x-switchyard-route')).toBe('e1:malformed_response,e2:200');
    expect((harness.attempts()[0] as AttemptLedgerEntry).outcome).toBe('malformed_response');
  });

  it('ends with one OpenAI error when every model of the space fails', async () => {
    const harness = await embeddingGateway();
    harness.openai.setDefault('model-e1', { status: 503 });
    harness.openai.setDefault('model-e2', { status: 503 });
    const res = await embed(harness, { model: 'emb', input: ['hello'] });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { type: string; code: string } };
    expect(body.error.code).toBeTruthy();
    expect(res.headers.get('x-switchyard-route')).toMatch(/^(e1:503,e2:503|e2:503,e1:503),e[12]:503$/);
  });

  it('stops at an invalid request instead of hiding it behind a fallback', async () => {
    const harness = await embeddingGateway();
    harness.openai.script('model-e1', [{ status: 400, errorMessage: 'input too odd' }]);
    const res = await embed(harness, { model: 'emb', input: ['hello'] });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe('input too odd');
    expect(harness.received('model-e2')).toBe(0);
  });

  it('takes an ad-hoc chain of one space, and refuses one that mixes spaces, naming them', async () => {
    const harness = await embeddingGateway();
    expect((await embed(harness, { model: 'e2,e1', input: 'x' })).headers.get('x-switchyard-model')).toBe(
      'e2',
    );
    const mixed = await embed(harness, { model: 'e1,e3', input: 'x' });
    expect(mixed.status).toBe(400);
    const { error } = (await mixed.json()) as { error: { code: string; param: string; message: string } };
    expect(error).toMatchObject({ code: 'wrong_model_kind', param: 'model' });
    expect(error.message).toContain('mixes embedding spaces (e1: 8, e3: 16 dimensions)');
    expect(harness.received('model-e1') + harness.received('model-e3')).toBe(0);
  });

  it('refuses chat models on /v1/embeddings and embedding models on /v1/chat/completions', async () => {
    const harness = await embeddingGateway();
    const chat = await embed(harness, { model: 'chat', input: 'x' });
    expect(chat.status).toBe(400);
    expect(((await chat.json()) as { error: { message: string } }).error.message).toContain(
      'needs models with dimensions',
    );
    const wrongWay = await harness.post({ model: 'emb', ...HELLO });
    expect(wrongWay.status).toBe(400);
    expect(((await wrongWay.json()) as { error: { message: string } }).error.message).toContain(
      'send it to POST /v1/embeddings',
    );
    expect(harness.received('model-a') + harness.received('model-e1')).toBe(0);
  });

  it('accepts dimensions equal to the space and sends them on; refuses any other value', async () => {
    const harness = await embeddingGateway();
    harness.openai.setDefault('model-e1', {});
    // Without its default the fake answers the request's dimensions: 8 proves they were sent.
    const same = await embed(harness, { model: 'emb', input: 'x', dimensions: 8 });
    expect(same.headers.get('x-switchyard-route')).toBe('e1:200');
    const other = await embed(harness, { model: 'emb', input: 'x', dimensions: 4 });
    expect(other.status).toBe(400);
    expect(await other.json()).toMatchObject({ error: { param: 'dimensions', code: 'invalid_value' } });
  });

  it('names the bad field of a malformed body', async () => {
    const harness = await embeddingGateway();
    const res = await embed(harness, { model: 'emb', input: [] });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { param: 'input', code: 'invalid_value' } });
  });

  it('goes through the same caller keys and admission as chat', async () => {
    const harness = await embeddingGateway({
      auth: true,
      admission: { pipelines: { emb: { requestsPerMinute: 1 } } },
    });
    expect((await embed(harness, { model: 'emb', input: 'x' })).status).toBe(401);
    const key = bearer('sk-alice-0123456789');
    expect((await embed(harness, { model: 'emb', input: 'x' }, key)).status).toBe(200);
    const refused = await embed(harness, { model: 'emb', input: 'x' }, key);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({
      error: { code: 'rate_limit_exceeded', param: 'admission.pipelines.emb.requestsPerMinute' },
    });
    expect(harness.received('model-e1')).toBe(1);
  });
});

describe('embeddings with the openai client against the served gateway', () => {
  it('reads the model that answered from the answer, as chat does', async () => {
    const harness = await embeddingGateway();
    const client = new OpenAI({ baseURL: `${harness.url}/v1`, apiKey: 'caller-key', maxRetries: 0 });
    const answer = await client.embeddings.create({ model: 'e2', input: 'solo', encoding_format: 'float' });
    expect(answer.model).toBe('e2');
    expect(answer.data[0]?.embedding).toEqual(expected('model-e2', 'solo'));
  });
});
