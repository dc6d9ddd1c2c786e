/**
 * Content parts end to end (issue 25 items 3 and 4): images, PDFs and failed tool results sent by
 * the real openai and @anthropic-ai/sdk clients arrive at each family's fake in that family's
 * native form, and a route that cannot carry what a request needs is skipped, never called with
 * the part stripped — with a 400 naming the capability when no route can.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestLedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { type GatewayHarness, startGatewayHarness } from '../helpers/gateway-harness.js';
import { PDF, PNG } from '../helpers/media-samples.js';

const CAT_URL = 'https://images.example.test/cat.png';

// biome-ignore lint/suspicious/noExplicitAny: wire bodies of three protocols, read field by field
type Json = any;

let h: GatewayHarness;
afterEach(async () => {
  await h?.close();
});

/** The body the fake of `model` (raw id) received last. */
const lastBody = (model: string): Json => {
  const fake = [h.openai, h.bedrock, h.anthropic].find((f) => f.requestsFor(model).length > 0);
  return fake?.requestsFor(model).at(-1)?.body;
};
const anthropicClient = () => new Anthropic({ baseURL: h.url, apiKey: 'caller-key', maxRetries: 0 });
type Configure = NonNullable<NonNullable<Parameters<typeof startGatewayHarness>[1]>['configure']>;
const start = (chain: string, configure?: Configure) =>
  startGatewayHarness({ p: { chain } }, { anthropic: true, configure });

describe('an image from the openai client', () => {
  const ask = (url: string) => ({
    model: 'p',
    messages: [
      {
        role: 'user' as const,
        content: [
          { type: 'text' as const, text: 'What is in this picture?' },
          { type: 'image_url' as const, image_url: { url } },
        ],
      },
    ],
  });

  it('arrives at an openai-compatible route as an image_url part (data URL and http URL)', async () => {
    h = await start('a');
    await h.client.chat.completions.create(ask(`data:image/png;base64,${PNG}`));
    expect(lastBody('model-a').messages[0].content).toEqual([
      { type: 'text', text: 'What is in this picture?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
    ]);
    await h.client.chat.completions.create(ask(CAT_URL));
    expect(lastBody('model-a').messages[0].content[1]).toEqual({
      type: 'image_url',
      image_url: { url: CAT_URL },
    });
  });

  it('arrives at a Bedrock route as a Converse image block with its bytes', async () => {
    h = await start('br');
    const answer = await h.client.chat.completions.create(ask(`data:image/png;base64,${PNG}`));
    expect(answer.choices[0]?.message.content).toBeTruthy();
    expect(lastBody('bedrock-model').messages[0].content).toEqual([
      { text: 'What is in this picture?' },
      { image: { format: 'png', source: { bytes: PNG } } },
    ]);
  });

  it('arrives at an Anthropic route as an image block, by base64 or by url', async () => {
    h = await start('an');
    await h.client.chat.completions.create(ask(`data:image/png;base64,${PNG}`));
    expect(lastBody('claude-model').messages[0].content[1]).toEqual({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: PNG },
    });
    await h.client.chat.completions.create(ask(CAT_URL));
    expect(lastBody('claude-model').messages[0].content[1]).toEqual({
      type: 'image',
      source: { type: 'url', url: CAT_URL },
    });
  });

  it('skips a Bedrock route for an image by URL (Converse takes none, the gateway fetches none), shown in the trail', async () => {
    h = await start('br,a');
    const { data, response } = await h.client.chat.completions.create(ask(CAT_URL)).withResponse();
    expect(data.model).toBe('a');
    expect(response.headers.get('x-switchyard-route')).toBe('!br:unsupported(imageUrls),a:200');
    expect(response.headers.get('x-switchyard-attempts')).toBe('1');
    expect(h.received('bedrock-model')).toBe(0);
    const request = h.requests().at(-1) as RequestLedgerEntry;
    expect(request.unsupported).toEqual([{ route: 'br', reason: 'unsupported', missing: ['imageUrls'] }]);
  });

  it('answers 400 in the OpenAI envelope naming the capability and the routes when no route can carry it', async () => {
    h = await start('br');
    const res = await h.post(ask(CAT_URL));
    expect(res.status).toBe(400);
    expect(res.headers.get('x-switchyard-route')).toBe('!br:unsupported(imageUrls)');
    expect(res.headers.get('x-should-retry')).toBe('false');
    expect((await res.json()).error).toEqual({
      message:
        "no route of pipeline 'p' can carry what this request needs (imageUrls); routes: br: unsupported(imageUrls)",
      type: 'invalid_request_error',
      code: 'unsupported_capability',
      param: null,
    });
    expect(h.received('bedrock-model')).toBe(0);
  });

  it("skips a model whose config says it takes no images, on the model's override", async () => {
    h = await start('a,b', (config) => {
      config.models.a = { ...config.models.a, capabilities: { images: false } };
    });
    const { response } = await h.client.chat.completions
      .create(ask(`data:image/png;base64,${PNG}`))
      .withResponse();
    expect(response.headers.get('x-switchyard-route')).toBe('!a:unsupported(images),b:200');
    expect(h.received('model-a')).toBe(0);
  });

  it('refuses an image media type no family takes, naming the field', async () => {
    h = await start('a');
    const res = await h.post(ask(`data:image/tiff;base64,${PNG}`));
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toBe(
      "messages[0].content[1].image_url.url: media type 'image/tiff' is not supported; use one of image/png, image/jpeg, image/gif, image/webp",
    );
  });
});

describe('images and PDFs from the @anthropic-ai/sdk client', () => {
  const content: Anthropic.ContentBlockParam[] = [
    { type: 'text', text: 'Compare these.' },
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
    {
      type: 'document',
      source: { type: 'base64', media_type: 'application/pdf', data: PDF },
      title: 'Q3 report.pdf',
    },
  ];
  const create = () =>
    anthropicClient().messages.create({ model: 'p', max_tokens: 64, messages: [{ role: 'user', content }] });

  it('arrive at an Anthropic route as image and document blocks', async () => {
    h = await start('an');
    const message = await create();
    expect(message.content[0]?.type).toBe('text');
    expect(lastBody('claude-model').messages[0].content).toEqual([
      { type: 'text', text: 'Compare these.' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
      {
        type: 'document',
        source: { type: 'base64', media_type: 'application/pdf', data: PDF },
        title: 'Q3 report.pdf',
      },
    ]);
  });

  it('arrive at a Bedrock route as Converse image and document blocks', async () => {
    h = await start('br');
    await create();
    expect(lastBody('bedrock-model').messages[0].content).toEqual([
      { text: 'Compare these.' },
      { image: { format: 'png', source: { bytes: PNG } } },
      { document: { format: 'pdf', name: 'Q3 report', source: { bytes: PDF } } },
    ]);
  });

  it('arrive at an openai-compatible route as image_url and file parts', async () => {
    h = await start('a');
    await create();
    expect(lastBody('model-a').messages[0].content).toEqual([
      { type: 'text', text: 'Compare these.' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
      { type: 'file', file: { file_data: `data:application/pdf;base64,${PDF}`, filename: 'Q3 report.pdf' } },
    ]);
  });

  it('streams an answer about an image', async () => {
    h = await start('an');
    const stream = anthropicClient().messages.stream({
      model: 'p',
      max_tokens: 64,
      messages: [{ role: 'user', content: content.slice(0, 2) }],
    });
    const final = await stream.finalMessage();
    expect(final.content[0]?.type).toBe('text');
    expect(lastBody('claude-model').messages[0].content[1].type).toBe('image');
  });

  it('answer a 400 in the Anthropic shape when no route can carry a PDF by URL', async () => {
    h = await start('a,br');
    const res = await h.postMessages({
      model: 'p',
      max_tokens: 64,
      messages: [
        {
          role: 'user',
          content: [{ type: 'document', source: { type: 'url', url: 'https://docs.example.test/a.pdf' } }],
        },
      ],
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message:
          "no route of pipeline 'p' can carry what this request needs (documentUrls); routes: a: unsupported(documentUrls), br: unsupported(documentUrls)",
      },
    });
    expect(h.received('model-a') + h.received('bedrock-model')).toBe(0);
  });
});

describe('a failed tool result (is_error) from the @anthropic-ai/sdk client', () => {
  const messages: Anthropic.MessageParam[] = [
    { role: 'user', content: 'Weather in Atlantis?' },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Atlantis' } }],
    },
    {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'no such city', is_error: true }],
    },
  ];
  const tools: Anthropic.Tool[] = [{ name: 'weather', input_schema: { type: 'object', properties: {} } }];
  const send = () => anthropicClient().messages.create({ model: 'p', max_tokens: 64, messages, tools });

  it('arrives at an Anthropic route with is_error', async () => {
    h = await start('an');
    await send();
    expect(lastBody('claude-model').messages[2].content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_1', content: 'no such city', is_error: true },
    ]);
  });

  it('arrives at a Bedrock route as toolResult status error', async () => {
    h = await start('br');
    await send();
    expect(lastBody('bedrock-model').messages[2].content).toEqual([
      { toolResult: { toolUseId: 'toolu_1', content: [{ text: 'no such city' }], status: 'error' } },
    ]);
  });

  it('arrives at an openai-compatible route marked in its text (Chat Completions has no is_error)', async () => {
    h = await start('a');
    await send();
    expect(lastBody('model-a').messages[2]).toEqual({
      role: 'tool',
      tool_call_id: 'toolu_1',
      content: '[tool error] no such city',
    });
  });
});
