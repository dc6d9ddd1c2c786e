/**
 * Images and PDFs through the Responses door (issue 25 items 2–3): openai-node's
 * `responses.create` with `input_image` and `input_file` parts, over the real gateway on loopback,
 * arrives at each family's fake (openai-compatible, Anthropic, Bedrock, Vertex) in that family's
 * native form; a route that cannot carry a part is skipped with its trail, and a Files API id is a
 * 400 naming the field before any upstream call.
 */
import OpenAI from 'openai';
import type { ResponseInputContent } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RequestLedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { type FakeTokenEndpoint, startFakeTokenEndpoint } from '../helpers/fake-token-endpoint.js';
import { addFakeVertex, type GatewayHarness, startGatewayHarness } from '../helpers/gateway-harness.js';
import { PDF, PNG } from '../helpers/media-samples.js';

const PDF_URL = 'https://docs.example.test/q3.pdf';

// biome-ignore lint/suspicious/noExplicitAny: wire bodies of three protocols, read field by field
type Json = any;

let h: GatewayHarness;
let tokens: FakeTokenEndpoint;
let client: OpenAI;

beforeAll(async () => {
  tokens = await startFakeTokenEndpoint();
  h = await startGatewayHarness(
    {
      p: { chain: 'a' },
      docUrl: { chain: 'a,an' },
      vertexFirst: { chain: 'v,an' },
      blindFirst: { chain: 'blind,an' },
      blindOnly: { chain: 'blind' },
    },
    {
      anthropic: true,
      configure: (config) => {
        addFakeVertex(config);
        // The openai-compatible model again, declared without images.
        config.models.blind = { ...config.models.a, capabilities: { images: false } };
      },
    },
  );
  h.env.VERTEX_SA_JSON = tokens.serviceAccount('gateway');
  client = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: 'caller-key', maxRetries: 0 });
});
afterAll(async () => {
  await h?.close();
  await tokens?.close();
});
beforeEach(() => {
  for (const fake of [h.openai, h.bedrock, h.anthropic]) fake.reset();
  h.ledger.length = 0;
});

/** The body the fake of `upstream` (raw model id) received last. */
const lastBody = (upstream: string): Json => {
  const fake = [h.openai, h.bedrock, h.anthropic].find((f) => f.requestsFor(upstream).length > 0);
  return fake?.requestsFor(upstream).at(-1)?.body;
};

const IMAGE_AND_PDF: ResponseInputContent[] = [
  { type: 'input_text', text: 'Compare these.' },
  { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
  { type: 'input_file', file_data: `data:application/pdf;base64,${PDF}`, filename: 'Q3 report.pdf' },
];
const ask = (model: string, content: ResponseInputContent[]) =>
  client.responses.create({ model, input: [{ role: 'user', content }] });

describe('an image and a PDF from openai-node responses.create', () => {
  it('arrive at an openai-compatible route as image_url and file parts', async () => {
    const response = await ask('a', IMAGE_AND_PDF);
    expect(response.output_text).toBeTruthy();
    expect(lastBody('model-a').messages[0].content).toEqual([
      { type: 'text', text: 'Compare these.' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
      { type: 'file', file: { file_data: `data:application/pdf;base64,${PDF}`, filename: 'Q3 report.pdf' } },
    ]);
  });

  it('arrive at an Anthropic route as image and document blocks', async () => {
    const response = await ask('an', IMAGE_AND_PDF);
    expect(response.output_text).toBeTruthy();
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
    await ask('br', IMAGE_AND_PDF);
    expect(lastBody('bedrock-model').messages[0].content).toEqual([
      { text: 'Compare these.' },
      { image: { format: 'png', source: { bytes: PNG } } },
      { document: { format: 'pdf', name: 'Q3 report', source: { bytes: PDF } } },
    ]);
  });

  it('arrives at a Vertex route as an image_url data URL part', async () => {
    await ask('v', IMAGE_AND_PDF.slice(0, 2));
    expect(lastBody('google/gemini-v').messages[0].content).toEqual([
      { type: 'text', text: 'Compare these.' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
    ]);
  });

  it('streams an answer about an image', async () => {
    const stream = client.responses.stream({
      model: 'an',
      input: [{ role: 'user', content: IMAGE_AND_PDF.slice(0, 2) }],
    });
    const final = await stream.finalResponse();
    expect(final.status).toBe('completed');
    expect(lastBody('claude-model').messages[0].content[1].type).toBe('image');
  });
});

describe('routes that cannot carry a part, on the Responses door', () => {
  it('skips a model declared without images, with !blind:unsupported(images) in the trail and the ledger', async () => {
    const { data, response } = await client.responses
      .create({ model: 'blindFirst', input: [{ role: 'user', content: IMAGE_AND_PDF.slice(0, 2) }] })
      .withResponse();
    expect(data.model).toBe('an');
    expect(response.headers.get('x-switchyard-route')).toBe('!blind:unsupported(images),an:200');
    expect(h.received('model-a')).toBe(0);
    const request = h.requests().at(-1) as RequestLedgerEntry;
    expect(request.unsupported).toEqual([{ route: 'blind', reason: 'unsupported', missing: ['images'] }]);
  });

  it('skips a Vertex route for a PDF (it takes no documents), with !v:unsupported(documents) in the trail', async () => {
    const { response } = await client.responses
      .create({ model: 'vertexFirst', input: [{ role: 'user', content: IMAGE_AND_PDF }] })
      .withResponse();
    expect(response.headers.get('x-switchyard-route')).toBe('!v:unsupported(documents),an:200');
    expect(h.received('google/gemini-v')).toBe(0);
    expect(lastBody('claude-model').messages[0].content[2].type).toBe('document');
  });

  it('sends a PDF by http(s) file_url only to a route that fetches document URLs', async () => {
    const { response } = await client.responses
      .create({
        model: 'docUrl',
        input: [{ role: 'user', content: [{ type: 'input_file', file_url: PDF_URL }] }],
      })
      .withResponse();
    expect(response.headers.get('x-switchyard-route')).toBe('!a:unsupported(documentUrls),an:200');
    expect(lastBody('claude-model').messages[0].content).toEqual([
      { type: 'document', source: { type: 'url', url: PDF_URL } },
    ]);
    expect(h.received('model-a')).toBe(0);
  });

  it('answers 400 unsupported_capability naming images and the route when no route can carry the image', async () => {
    const error = await ask('blindOnly', IMAGE_AND_PDF.slice(0, 2)).then(
      () => undefined,
      (e: unknown) => e as InstanceType<typeof OpenAI.BadRequestError>,
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error?.code).toBe('unsupported_capability');
    expect(error?.message).toContain('(images); routes: blind: unsupported(images)');
    expect(error?.headers.get('x-switchyard-route')).toBe('!blind:unsupported(images)');
    expect(h.received('model-a')).toBe(0);
  });
});

describe('Files API ids on the Responses door', () => {
  it.each([
    [
      { type: 'input_image', file_id: 'file-abc', detail: 'auto' },
      'input[0].content[0].file_id',
      /send the image inline/,
    ],
    [
      { type: 'input_file', file_id: 'file-abc' },
      'input[0].content[0].file_id',
      /send the PDF inline as file_data/,
    ],
  ] as const)(
    'refuses %j with a 400 whose param is %s, before any upstream call',
    async (part, param, message) => {
      const error = await ask('p', [part as ResponseInputContent]).then(
        () => undefined,
        (e: unknown) => e as InstanceType<typeof OpenAI.BadRequestError>,
      );
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error?.param).toBe(param);
      expect(error?.message).toMatch(message);
      expect(error?.headers.get('x-should-retry')).toBe('false');
      expect(h.openai.requests).toHaveLength(0);
    },
  );
});
