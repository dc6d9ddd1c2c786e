/**
 * The second line behind the edge's nesting bound (issue 26, item 1): a request that fails while
 * it is turned into the upstream's wire body (our serialiser, or the SDK's own) is the caller's
 * `invalid_request`, named, with nothing sent, on every family and for plain and streamed calls
 * alike. The request here is one the edge would refuse; a job stored before the bound existed, or
 * an SDK limit below the edge's, would reach the adapter the same way.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatModel, ChatRequest } from '../../../lambda/core/chat/chat-model.js';
import { startFakeAnthropic } from '../../../lambda/dev/fakes/anthropic-fake.js';
import { startFakeBedrock } from '../../../lambda/dev/fakes/bedrock-fake.js';
import type { FakeUpstream } from '../../../lambda/dev/fakes/fake-upstream.js';
import { startFakeOpenAI } from '../../../lambda/dev/fakes/openai-fake.js';
import { createAnthropicChatModel } from '../../../lambda/families/anthropic/anthropic-chat-model.js';
import { createBedrockChatModel } from '../../../lambda/families/bedrock/bedrock-chat-model.js';
import { createOpenAIChatModel } from '../../../lambda/families/openai-compatible/openai-chat-model.js';
import { callOptions, providerErrorOf, streamErrorOf } from './harness.js';

/** A tool schema 5,000 objects deep: more than `JSON.stringify` or Smithy's serialiser can walk. */
const DEEP: Record<string, unknown> = JSON.parse(`${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`);
const ATTACK: ChatRequest = {
  messages: [{ role: 'user', content: 'hi' }],
  tools: [{ name: 'lookup', parameters: DEEP }],
};
const FINE: ChatRequest = { ...ATTACK, tools: [{ name: 'lookup', parameters: { type: 'object' } }] };

let openai: FakeUpstream;
let bedrock: FakeUpstream;
let anthropic: FakeUpstream;
beforeAll(async () => {
  [openai, bedrock, anthropic] = await Promise.all([
    startFakeOpenAI(),
    startFakeBedrock(),
    startFakeAnthropic(),
  ]);
});
afterAll(() => Promise.all([openai.close(), bedrock.close(), anthropic.close()]));
beforeEach(() => {
  for (const fake of [openai, bedrock, anthropic]) fake.reset();
});

/** Each family's model, its fake, and where its wire body nests the tool schema. */
const FAMILIES: Array<{ family: string; fake: () => FakeUpstream; model: () => ChatModel; at: string }> = [
  {
    family: 'openai-compatible (its own serialiser)',
    fake: () => openai,
    model: () =>
      createOpenAIChatModel({
        key: 'a',
        provider: 'fake',
        model: 'model-a',
        baseURL: openai.url,
        apiKey: 'sk-x',
      }),
    at: 'tools[0].function.parameters.a.a.a.a…',
  },
  {
    family: 'anthropic (serialised before the SDK)',
    fake: () => anthropic,
    model: () =>
      createAnthropicChatModel({
        key: 'an',
        provider: 'an',
        model: 'claude-model',
        baseURL: anthropic.url,
        apiKey: 'sk-ant-x',
        defaultMaxTokens: 64,
      }),
    at: 'tools[0].input_schema.a.a.a.a.a…',
  },
  {
    family: "bedrock (the SDK's own serialiser)",
    fake: () => bedrock,
    model: () =>
      createBedrockChatModel({
        key: 'br',
        provider: 'br',
        model: 'bedrock-model',
        region: 'us-east-1',
        endpoint: bedrock.url,
        credentials: { accessKeyId: 'AKIDFAKE', secretAccessKey: 'fake' },
      }),
    at: 'toolConfig.tools[0].toolSpec.inputSchema.json.a.a…',
  },
];

describe.each(FAMILIES)('a request its serialiser cannot walk, on $family', ({ fake, model, at }) => {
  const expectLocal = (error: { failureClass: string; message: string; status: number | undefined }) => {
    expect(error.failureClass).toBe('invalid_request');
    expect(error.status).toBeUndefined();
    expect(error.message).toMatch(
      /^the request could not be prepared for provider '\w+' \(serialise failed: RangeError; /,
    );
    expect(error.message).toContain(` levels deep at ${at}`);
    expect(error.message).toMatch(/nothing was sent$/);
    expect(fake().requests).toHaveLength(0);
  };

  it('fails a plain call as the caller’s invalid_request, with nothing sent', async () => {
    expectLocal(await providerErrorOf(model().generate(ATTACK, callOptions())));
  });

  it('fails a stream the same way, before any event', async () => {
    const { events, error } = await streamErrorOf(model().stream(ATTACK, callOptions()));
    expect(events).toEqual([]);
    expectLocal(error);
  });

  it('still sends the same request with a schema it can walk', async () => {
    await model().generate(FINE, callOptions());
    expect(fake().requests).toHaveLength(1);
  });
});

describe('a local failure keeps its precedence rules', () => {
  it('reads as cancelled when the caller had already gone away', async () => {
    const gone = new AbortController();
    gone.abort();
    const openaiModel = FAMILIES[0]?.model() as ChatModel;
    const error = await providerErrorOf(openaiModel.generate(ATTACK, callOptions({ signal: gone.signal })));
    expect(error.failureClass).toBe('cancelled');
  });

  it('names the embeddings body too', async () => {
    const embeddings = createOpenAIChatModel({
      key: 'e',
      provider: 'fake',
      model: 'embed',
      baseURL: openai.url,
      apiKey: 'sk-x',
    });
    const input = [1n as unknown as string];
    const error = await providerErrorOf(
      embeddings.embed?.({ input, dimensions: 3, sendDimensions: false }, callOptions()) ?? Promise.resolve(),
    );
    expect(error.failureClass).toBe('invalid_request');
    expect(error.message).toBe(
      "the request could not be prepared for provider 'fake' (serialise failed: TypeError); nothing was sent",
    );
    expect(openai.requests).toHaveLength(0);
  });

  it("leaves a failure before Bedrock's serialiser (its credentials) to the classifier", async () => {
    const noCredentials = createBedrockChatModel({
      key: 'br',
      provider: 'br',
      model: 'bedrock-model',
      region: 'us-east-1',
      endpoint: bedrock.url,
      credentials: async () => {
        throw new Error('no credentials in this process');
      },
    });
    const error = await providerErrorOf(noCredentials.generate(ATTACK, callOptions()));
    expect(error.failureClass).not.toBe('invalid_request');
    expect(bedrock.requests).toHaveLength(0);
  });
});
