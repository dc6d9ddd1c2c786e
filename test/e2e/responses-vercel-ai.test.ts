/**
 * The Vercel AI SDK's default OpenAI model, `openai('<pipeline>')`, calls the Responses API: here
 * it runs against the real gateway and the fakes with `generateText`, `streamText`, tools (one
 * step and a tool loop) and `generateObject`; a conversation continued from `response.messages`
 * needs `store: false`, and without it the refusal is an `APICallError` that names the setting.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { APICallError, generateObject, generateText, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type GatewayHarness, startGatewayHarness } from '../helpers/gateway-harness.js';
import { PDF, PNG } from '../helpers/media-samples.js';

let h: GatewayHarness;
let openai: ReturnType<typeof createOpenAI>;

beforeAll(async () => {
  h = await startGatewayHarness({ p: { chain: 'a' }, claude: { chain: 'an' } }, { anthropic: true });
  openai = createOpenAI({ baseURL: `${h.url}/v1`, apiKey: 'caller-key' });
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.openai.reset();
  h.anthropic.reset();
  h.ledger.length = 0;
});

const weather = tool({
  description: 'Weather in a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, temp: -3 }),
});

describe("Vercel AI SDK's default openai('<pipeline>') over /v1/responses", () => {
  it('generateText answers with text, usage and the Responses response id', async () => {
    const result = await generateText({ model: openai('p'), prompt: 'hello there', maxRetries: 0 });
    expect(result.text).toBe('Hello from model-a.');
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(result.response.id).toMatch(/^resp_/);
    expect(result.response.headers?.['x-switchyard-model']).toBe('a');
    expect(h.requests()).toMatchObject([{ pipeline: 'p', reason: 'success' }]);
  });

  it('streamText streams the text and ends with the usage', async () => {
    const result = streamText({ model: openai('claude'), prompt: 'hello there', maxRetries: 0 });
    let text = '';
    for await (const piece of result.textStream) text += piece;
    expect(text).toBe('Hello from claude-model.');
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
    expect(await result.finishReason).toBe('stop');
  });

  it('streamText sees a failure after the commit as one error part, after the text already streamed', async () => {
    h.openai.script('model-a', [{ status: 500, cutAfterChunks: 2 }]);
    const result = streamText({
      model: openai('p'),
      prompt: 'hello there',
      maxRetries: 0,
      onError: () => {},
    });
    const parts: { type: string; error?: unknown }[] = [];
    for await (const part of result.fullStream) parts.push(part);
    const errors = parts.filter((p) => p.type === 'error');
    expect(errors).toHaveLength(1);
    expect(String((errors[0]?.error as { message?: string })?.message)).toMatch(
      /failed after output started/,
    );
    expect(parts.findIndex((p) => p.type === 'text-delta')).toBeLessThan(parts.indexOf(errors[0] as never));
    expect(h.requests().at(-1)).toMatchObject({ reason: 'partial' });
  });

  it('generateText with a tool gets the call and runs it in one step (the default)', async () => {
    h.openai.script('model-a', [{ toolCall: { name: 'weather', arguments: { city: 'Oslo' } } }]);
    const result = await generateText({
      model: openai('p'),
      prompt: 'Weather?',
      tools: { weather },
      maxRetries: 0,
    });
    expect(result.toolCalls).toMatchObject([{ toolName: 'weather', input: { city: 'Oslo' } }]);
    expect(result.toolResults).toMatchObject([{ toolName: 'weather', output: { city: 'Oslo', temp: -3 } }]);
    expect(result.finishReason).toBe('tool-calls');
  });

  it('runs a tool loop with default settings: the tool result reaches the upstream as a tool message', async () => {
    h.openai.script('model-a', [{ toolCall: { name: 'weather', arguments: { city: 'Oslo' } } }]);
    const result = await generateText({
      model: openai('p'),
      prompt: 'Weather?',
      tools: { weather },
      stopWhen: stepCountIs(2),
      maxRetries: 0,
    });
    expect(result.steps).toHaveLength(2);
    expect(result.text).toBe('Hello from model-a.');
    const sent = h.openai.requestsFor('model-a').at(-1)?.messages;
    expect(sent?.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(sent?.at(-1)?.text).toContain('-3');
  });

  it('streamText with a tool streams the call’s input and runs the tool', async () => {
    h.anthropic.script('claude-model', [{ toolCall: { name: 'weather', arguments: { city: 'Bergen' } } }]);
    const result = streamText({
      model: openai('claude'),
      prompt: 'Weather?',
      tools: { weather },
      maxRetries: 0,
    });
    const parts: string[] = [];
    for await (const part of result.fullStream) parts.push(part.type);
    expect(parts).toContain('tool-input-delta');
    expect(await result.toolResults).toMatchObject([{ output: { city: 'Bergen', temp: -3 } }]);
  });

  it('generateObject gets an object that matches the schema, repaired by the gateway when fenced', async () => {
    h.openai.script('model-a', [{ text: '```json\n{"city":"Oslo","temp":-3}\n```' }]);
    const result = await generateObject({
      model: openai('p'),
      schema: z.object({ city: z.string(), temp: z.number() }),
      prompt: 'Weather as JSON',
      maxRetries: 0,
    });
    expect(result.object).toEqual({ city: 'Oslo', temp: -3 });
    const format = (h.openai.requestsFor('model-a').at(-1)?.body as { response_format?: { type: string } })
      ?.response_format;
    expect(format?.type).toBe('json_schema');
  });

  it('continues a conversation from response.messages with store: false; without it, a 400 says so', async () => {
    const first = await generateText({ model: openai('p'), prompt: 'hello there', maxRetries: 0 });
    const messages = [
      { role: 'user' as const, content: 'hello there' },
      ...first.response.messages,
      { role: 'user' as const, content: 'and again?' },
    ];
    const error = await generateText({ model: openai('p'), messages, maxRetries: 0 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    // The SDK refers to the earlier answer by its item id (`item_reference`), which needs stored state.
    expect(APICallError.isInstance(error)).toBe(true);
    const call = error as APICallError;
    expect(call.statusCode).toBe(400);
    expect(call.message).toMatch(/providerOptions\.openai\.store = false/);
    expect(call.isRetryable).toBe(false);
    expect(h.openai.requestsFor('model-a')).toHaveLength(1);

    const second = await generateText({
      model: openai('p'),
      messages,
      providerOptions: { openai: { store: false } },
      maxRetries: 0,
    });
    expect(second.text).toBe('Hello from model-a.');
    const sent = h.openai.requestsFor('model-a').at(-1)?.messages;
    expect(sent).toEqual([
      { role: 'user', text: 'hello there' },
      { role: 'assistant', text: 'Hello from model-a.' },
      { role: 'user', text: 'and again?' },
    ]);
  });
});

describe("Vercel AI SDK's image and file parts over /v1/responses", () => {
  it('generateText with an image and a PDF: they arrive at an Anthropic route as image and document blocks', async () => {
    const result = await generateText({
      model: openai('claude'),
      maxRetries: 0,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare these.' },
            { type: 'image', image: PNG, mediaType: 'image/png' },
            { type: 'file', data: PDF, mediaType: 'application/pdf', filename: 'q3.pdf' },
          ],
        },
      ],
    });
    expect(result.text).toBe('Hello from claude-model.');
    const body = h.anthropic.requestsFor('claude-model').at(-1)?.body as {
      messages: { content: unknown[] }[];
    };
    expect(body.messages[0]?.content).toEqual([
      { type: 'text', text: 'Compare these.' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
      {
        type: 'document',
        source: { type: 'base64', media_type: 'application/pdf', data: PDF },
        title: 'q3.pdf',
      },
    ]);
  });
});
