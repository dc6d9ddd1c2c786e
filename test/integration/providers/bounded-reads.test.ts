/**
 * A 100 MB answer is cut at the bound, on every family's client, over real HTTP: the attempt
 * fails as `malformed_response` and the upstream sees its connection closed long before it has
 * written the whole body (docs/security.md#bounded-upstream-reads).
 */
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';
import { createCatalog } from '../../../lambda/core/catalog/catalog.js';
import type { ChatModel, ChatRequest } from '../../../lambda/core/chat/chat-model.js';
import {
  type OversizedAnswer,
  type OversizedUpstream,
  startOversizedUpstream,
} from '../../../lambda/dev/fakes/oversized-upstream.js';
import { createAnthropicChatModel } from '../../../lambda/families/anthropic/anthropic-chat-model.js';
import { createBedrockChatModel } from '../../../lambda/families/bedrock/bedrock-chat-model.js';
import { createRouteModels } from '../../../lambda/families/create-route-models.js';
import { createOpenAIChatModel } from '../../../lambda/families/openai-compatible/openai-chat-model.js';
import { DEFAULT_ANSWER_LIMITS } from '../../../lambda/families/shared/answer-limits.js';
import { startFakeTokenEndpoint } from '../../helpers/fake-token-endpoint.js';
import { callOptions, providerErrorOf, streamErrorOf } from './harness.js';

const MB100 = 100 * 1024 * 1024;
const REQUEST: ChatRequest = { messages: [{ role: 'user', content: 'Say hello' }] };

/** The next answer of the upstream; each test sets it. */
let next: OversizedAnswer = { shape: 'json', bytes: MB100 };
let upstream: OversizedUpstream;
let openai: ChatModel;
let anthropic: ChatModel;
let bedrock: ChatModel;

beforeAll(async () => {
  upstream = await startOversizedUpstream((_req: IncomingMessage) => next);
  openai = createOpenAIChatModel({
    key: 'gpt-mini',
    provider: 'openai',
    model: 'gpt-4o-mini',
    baseURL: `${upstream.url}/v1`,
    apiKey: 'sk-test',
  });
  anthropic = createAnthropicChatModel({
    key: 'claude-fast',
    provider: 'anthropic',
    model: 'claude-haiku',
    baseURL: upstream.url,
    apiKey: 'sk-ant-test',
    defaultMaxTokens: 256,
  });
  bedrock = createBedrockChatModel({
    key: 'llama-br',
    provider: 'bedrock',
    model: 'meta.llama3-3-70b-instruct-v1:0',
    region: 'us-east-1',
    endpoint: upstream.url,
    credentials: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'fake' },
  });
});
afterAll(() => upstream.close());
beforeEach(() => {
  upstream.sent.length = 0;
});

/** The one answer written: closed by the client before its end, well short of 100 MB. */
async function expectCutShort(): Promise<void> {
  await upstream.settled();
  expect(upstream.sent).toHaveLength(1);
  const [sent] = upstream.sent;
  expect(sent?.finished).toBe(false);
  expect(sent?.closedEarly).toBe(true);
  // What was written past the bound sat in the loopback socket buffers (a few MB at most).
  expect(sent?.written).toBeLessThan(MB100 / 2);
}

const families = () =>
  [
    ['openai-compatible', openai],
    ['anthropic', anthropic],
    ['bedrock', bedrock],
  ] as const;

describe.each([
  ['a 100 MB JSON answer', { shape: 'json', bytes: MB100 }],
  ['a 100 MB body that is not JSON', { shape: 'text', bytes: MB100 }],
  ['a 100 MB error body (500)', { shape: 'json', bytes: MB100, status: 500 }],
] as const)('bounded reads: %s', (_name, answer) => {
  it.each(['openai-compatible', 'anthropic', 'bedrock'])(
    'is cut at the body bound on %s, as malformed_response',
    async (family) => {
      next = answer;
      const model = families().find(([name]) => name === family)?.[1] as ChatModel;
      const error = await providerErrorOf(model.generate(REQUEST, callOptions()));
      expect(error.failureClass).toBe('malformed_response');
      expect(error.message).toContain(
        `over ${DEFAULT_ANSWER_LIMITS.maxUpstreamBodyBytes} bytes (limits.maxUpstreamBodyBytes)`,
      );
      await expectCutShort();
    },
  );
});

describe('bounded reads: one 100 MB stream event', () => {
  it.each([
    ['openai-compatible', 'sse-line'],
    ['anthropic', 'sse-line'],
    ['bedrock', 'event-stream'],
  ] as const)('is cut at the event bound on %s (%s), as malformed_response', async (family, shape) => {
    next = { shape, bytes: MB100 };
    const model = families().find(([name]) => name === family)?.[1] as ChatModel;
    const { events, error } = await streamErrorOf(model.stream(REQUEST, callOptions()));
    expect(events).toStrictEqual([]);
    expect(error.failureClass).toBe('malformed_response');
    expect(error.message).toContain(
      `a stream event over ${DEFAULT_ANSWER_LIMITS.maxUpstreamEventBytes} bytes (limits.maxUpstreamEventBytes)`,
    );
    await expectCutShort();
  });
});

describe('bounded reads: embeddings', () => {
  it('cuts a 100 MB embeddings answer for one short vector at the body bound', async () => {
    next = { shape: 'json', bytes: MB100 };
    const embed = openai.embed;
    if (!embed) throw new Error('the openai-compatible model embeds');
    const request = { input: ['hi'], dimensions: 8, sendDimensions: false };
    const error = await providerErrorOf(embed(request, callOptions()));
    expect(error.failureClass).toBe('malformed_response');
    // 8 MiB and 48 bytes for each of the 8 numbers asked for.
    expect(error.message).toContain(`over ${DEFAULT_ANSWER_LIMITS.maxUpstreamBodyBytes + 8 * 48} bytes`);
    await expectCutShort();
  });
});

describe('bounded reads: the configured limits reach every route model', () => {
  it('cuts a vertex route (the OpenAI-compatible transport) at limits.maxUpstreamBodyBytes and maxUpstreamEventBytes', async () => {
    const tokens = await startFakeTokenEndpoint();
    try {
      const config = parseConfig({
        providers: {
          vertex: {
            type: 'vertex',
            project: 'switchyard-test',
            location: 'us-central1',
            baseURL: `${upstream.url}/v1`,
            apiKeyEnv: 'VERTEX_SA_JSON',
          },
        },
        models: { gemini: { provider: 'vertex', model: 'google/gemini-2.0-flash-001' } },
        limits: { maxUpstreamBodyBytes: 4_096, maxUpstreamEventBytes: 512 },
      });
      const key = tokens.serviceAccount('first');
      const access = { apiKey: () => key, keyHint: () => 'VERTEX_SA_JSON' };
      const routes = createRouteModels(
        createCatalog(config).routes.values(),
        access,
        undefined,
        config.limits,
      );
      const gemini = routes.get('gemini')?.model as ChatModel;

      next = { shape: 'json', bytes: MB100 };
      const error = await providerErrorOf(gemini.generate(REQUEST, callOptions()));
      expect(error.message).toContain('a body over 4096 bytes (limits.maxUpstreamBodyBytes)');
      await expectCutShort();

      upstream.sent.length = 0;
      next = { shape: 'sse-line', bytes: MB100 };
      const { error: streamError } = await streamErrorOf(gemini.stream(REQUEST, callOptions()));
      expect(streamError.message).toContain('a stream event over 512 bytes (limits.maxUpstreamEventBytes)');
      await expectCutShort();
    } finally {
      await tokens.close();
    }
  });
});
