import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EmbeddingRequest } from '../../../lambda/core/embeddings/embedding-model.js';
import type { FakeUpstream } from '../../../lambda/dev/fakes/fake-upstream.js';
import { fakeVector } from '../../../lambda/dev/fakes/openai-embeddings.js';
import { startFakeOpenAI } from '../../../lambda/dev/fakes/openai-fake.js';
import { createOpenAIChatModel } from '../../../lambda/families/openai-compatible/openai-chat-model.js';
import { callOptions, providerErrorOf } from './harness.js';

const UPSTREAM = 'text-embedding-3-small';
const REQUEST: EmbeddingRequest = { input: ['alpha', 'beta'], dimensions: 4, sendDimensions: false };

let fake: FakeUpstream;
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  fake.setDefault(UPSTREAM, { dimensions: 4 });
});

const model = () =>
  createOpenAIChatModel({
    key: 'small',
    provider: 'openai',
    model: UPSTREAM,
    baseURL: fake.url,
    apiKey: 'sk-test',
  });
const embed = (request: EmbeddingRequest = REQUEST) =>
  model().embed?.(request, callOptions()) as Promise<unknown>;

describe('openai-compatible embeddings', () => {
  it('answers one vector per input, in order, with the input tokens', async () => {
    expect(await embed()).toEqual({
      vectors: ['alpha', 'beta'].map((text) => fakeVector(`${UPSTREAM}\u0000${JSON.stringify(text)}`, 4)),
      // The fake counts a token per four characters, at least one per input: 2 + 1.
      usage: { inputTokens: 3, outputTokens: 0 },
    });
    expect(fake.requests.map((r) => [r.model, r.messages?.map((m) => m.text)])).toEqual([
      [UPSTREAM, ['alpha', 'beta']],
    ]);
  });

  it('asks the upstream for the dimensions only when the caller did', async () => {
    fake.setDefault(UPSTREAM, {});
    // The fake answers the dimensions it was asked for, else 1536.
    expect(await embed({ ...REQUEST, sendDimensions: true })).toMatchObject({
      vectors: [expect.any(Array), expect.any(Array)],
    });
    const error = await providerErrorOf(embed());
    expect(error.message).toBe(
      "malformed upstream response: embedding 0 is not 4 numbers (the model's dimensions)",
    );
  });

  it.each([
    [{ status: 429, retryAfter: 3 }, 'rate_limited'],
    [{ status: 500 }, 'unavailable'],
    [{ status: 401 }, 'upstream_auth'],
    [{ status: 404 }, 'model_not_found'],
    [{ status: 400, errorMessage: 'input is odd' }, 'invalid_request'],
    [{ reset: true }, 'network'],
    [{ malformed: 'schema' as const }, 'malformed_response'],
    [{ malformed: true }, 'malformed_response'],
    [{ cutAfterChunks: 1 }, 'network'],
    [{ dimensions: 5 }, 'malformed_response'],
  ])('turns the fault %j into %s', async (fault, failureClass) => {
    fake.script(UPSTREAM, [fault]);
    const error = await providerErrorOf(embed());
    expect(error).toMatchObject({ failureClass, provider: 'openai', model: 'small' });
  });

  it('carries Retry-After as the cooling hint', async () => {
    fake.script(UPSTREAM, [{ status: 429, retryAfter: 3 }]);
    expect((await providerErrorOf(embed())).retryAfterMs).toBe(3000);
  });
});
