/**
 * `POST /v1/messages/count_tokens` on the Anthropic door, driven by @anthropic-ai/sdk's
 * `messages.countTokens`: counted by the route's own endpoint on the Anthropic family, estimated
 * (characters / `admission.charsPerToken`) elsewhere or when the count fails, and refused in
 * Anthropic's envelope, like the door's 404s.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tokensFor } from '../../lambda/dev/fakes/fake-answer.js';
import { type GatewayHarness, startGatewayHarness } from '../helpers/gateway-harness.js';

let h: GatewayHarness;
let client: Anthropic;

beforeAll(async () => {
  h = await startGatewayHarness(
    { claude: { chain: 'an,a' }, gpt: { chain: 'a' } },
    { anthropic: true, configure: (config) => Object.assign(config, { admission: { charsPerToken: 3 } }) },
  );
  client = new Anthropic({ baseURL: h.url, apiKey: 'caller-key', maxRetries: 0 });
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.anthropic.reset();
  h.openai.reset();
  h.ledger.length = 0;
});

const SYSTEM = 'Answer in one word.';
const QUESTION = 'What is the capital of Norway?';
const MESSAGES = [{ role: 'user' as const, content: QUESTION }];

describe('count_tokens through the Anthropic SDK', () => {
  it('is counted by the Anthropic route’s own count endpoint, which receives the prompt in its native form', async () => {
    const { data, response } = await client.messages
      .countTokens({ model: 'claude', system: SYSTEM, messages: MESSAGES })
      .withResponse();
    expect(data).toEqual({ input_tokens: tokensFor(SYSTEM.length + QUESTION.length) });
    expect(response.headers.get('x-switchyard-token-count')).toBe('upstream');
    expect(response.headers.get('x-switchyard-model')).toBe('an');
    const [sent] = h.anthropic.requestsFor('claude-model');
    expect(sent?.path).toBe('/v1/messages/count_tokens');
    expect(sent?.body).toEqual({ model: 'claude-model', system: SYSTEM, messages: MESSAGES });
    // A count is not an attempt: no ledger line, no chat call.
    expect(h.ledger).toHaveLength(0);
  });

  it('carries tools to the count endpoint', async () => {
    const tools = [{ name: 'lookup', input_schema: { type: 'object' as const, properties: {} } }];
    await client.messages.countTokens({ model: 'claude', messages: MESSAGES, tools });
    expect(h.anthropic.requestsFor('claude-model')[0]?.body).toMatchObject({
      tools: [{ name: 'lookup', input_schema: { type: 'object', properties: {} } }],
    });
  });

  it('is estimated at admission.charsPerToken characters of the messages on a family without a count endpoint', async () => {
    const { data, response } = await client.messages
      .countTokens({ model: 'gpt', system: SYSTEM, messages: MESSAGES })
      .withResponse();
    const chars = JSON.stringify(MESSAGES).length + JSON.stringify(SYSTEM).length;
    expect(data).toEqual({ input_tokens: Math.ceil(chars / 3) });
    expect(response.headers.get('x-switchyard-token-count')).toBe('estimate');
    expect(response.headers.has('x-switchyard-model')).toBe(false);
    expect(h.openai.requests).toHaveLength(0);
  });

  it('falls back to the estimate when the count endpoint fails', async () => {
    h.anthropic.script('claude-model', [{ status: 500 }]);
    const { data, response } = await client.messages
      .countTokens({ model: 'claude', messages: MESSAGES })
      .withResponse();
    expect(data.input_tokens).toBe(Math.ceil(JSON.stringify(MESSAGES).length / 3));
    expect(response.headers.get('x-switchyard-token-count')).toBe('estimate');
  });

  it('answers an unknown pipeline with a 404 in Anthropic’s envelope', async () => {
    const error = await client.messages
      .countTokens({ model: 'nope', messages: MESSAGES })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect((error as InstanceType<typeof Anthropic.NotFoundError>).error).toMatchObject({
      type: 'error',
      error: { type: 'not_found_error', message: expect.stringContaining('nope') },
    });
  });

  it('answers a bad body with a 400 in Anthropic’s envelope naming the field', async () => {
    const error = await client.messages
      .countTokens({ model: 'claude', messages: [{ role: 'wizard', content: 'x' }] } as never)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringMatching(/^messages\[0\]\.role/) },
    });
  });

  it.each([
    ['GET', '/v1/messages/count_tokens'],
    ['POST', '/v1/messages/nope'],
  ])('answers %s %s with a 404 in Anthropic’s envelope', async (method, path) => {
    const res = await fetch(`${h.url}${path}`, { method, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
  });
});
