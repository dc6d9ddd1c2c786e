/**
 * `POST /v1/responses` driven by openai-node as an application uses it (`responses.create`,
 * `responses.stream`), over the real gateway on loopback and the fakes of every provider family:
 * plain and streamed answers, a tool round trip whose result reaches each upstream in its native
 * form, structured output through the same validation and repair as chat, the evidence headers and
 * ledger, a failure after the commit, and the refusals of stateful features.
 */
import OpenAI from 'openai';
import { zodTextFormat } from 'openai/helpers/zod';
import type { ResponseInput, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type FakeTokenEndpoint, startFakeTokenEndpoint } from '../helpers/fake-token-endpoint.js';
import { addFakeVertex, type GatewayHarness, startGatewayHarness } from '../helpers/gateway-harness.js';

let h: GatewayHarness;
let tokens: FakeTokenEndpoint;
let client: OpenAI;

beforeAll(async () => {
  tokens = await startFakeTokenEndpoint();
  h = await startGatewayHarness(
    { p: { chain: 'a' }, fb: { chain: 'a,b' } },
    { anthropic: true, configure: addFakeVertex },
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

const WEATHER = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};

/** Each provider family: the model key, its upstream id, and the fake that serves it. */
const FAMILIES = [
  { family: 'openai-compatible', model: 'a', upstream: 'model-a', fake: () => h.openai },
  { family: 'anthropic', model: 'an', upstream: 'claude-model', fake: () => h.anthropic },
  { family: 'bedrock', model: 'br', upstream: 'bedrock-model', fake: () => h.bedrock },
  { family: 'vertex', model: 'v', upstream: 'google/gemini-v', fake: () => h.openai },
] as const;

/** The tool result as the upstream received it, in its family's own shape. */
function toolResultSent(family: string, body: unknown): unknown {
  const b = body as Record<string, unknown[]>;
  if (family === 'anthropic') {
    return b.messages
      ?.flatMap((m) => (m as { content: unknown }).content)
      .find((c) => (c as { type?: string }).type === 'tool_result');
  }
  if (family === 'bedrock') {
    return b.messages
      ?.flatMap((m) => (m as { content: unknown[] }).content)
      .find((c) => 'toolResult' in (c as object));
  }
  return b.messages?.find((m) => (m as { role: string }).role === 'tool');
}

describe.each(FAMILIES)(
  'openai-node responses over the $family family',
  ({ family, model, upstream, fake }) => {
    it('answers responses.create with an output_text message, its usage and the answering model key', async () => {
      const { data, response } = await client.responses
        .create({ model, input: 'hello there', instructions: 'Be brief.' })
        .withResponse();
      expect(data).toMatchObject({
        object: 'response',
        status: 'completed',
        model,
        id: expect.stringMatching(/^resp_/),
      });
      expect(data.output_text).toMatch(/^Hello from /);
      expect(data.usage?.total_tokens).toBe(
        (data.usage?.input_tokens ?? 0) + (data.usage?.output_tokens ?? 0),
      );
      expect(data.usage?.output_tokens).toBeGreaterThan(0);
      expect(response.headers.get('x-switchyard-model')).toBe(model);
      expect(response.headers.get('x-switchyard-route')).toBe(`${model}:200`);
      expect(fake().requestsFor(upstream)).toHaveLength(1);
    });

    it('streams responses.stream text to the same final response', async () => {
      const stream = client.responses.stream({ model, input: 'hello there' });
      let deltas = '';
      stream.on('response.output_text.delta', (e) => {
        deltas += e.delta;
      });
      const final = await stream.finalResponse();
      expect(final.status).toBe('completed');
      expect(final.output_text).toBe(deltas);
      expect(deltas).toMatch(/^Hello from /);
      expect(final.usage?.output_tokens).toBeGreaterThan(0);
      expect(h.requests().at(-1)).toMatchObject({ reason: 'success', model, stream: true });
    });

    it('round-trips a function call: the call comes back as an item, its output reaches the upstream', async () => {
      fake().script(upstream, [{ toolCall: { name: 'get_weather', arguments: { city: 'Oslo' } } }]);
      const first = await client.responses.create({ model, input: 'Weather in Oslo?', tools: [WEATHER] });
      const call = first.output.find((item) => item.type === 'function_call');
      expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', status: 'completed' });
      expect(JSON.parse(call?.type === 'function_call' ? call.arguments : '')).toEqual({ city: 'Oslo' });
      if (call?.type !== 'function_call') throw new Error('no function call');
      const input: ResponseInput = [
        { role: 'user', content: 'Weather in Oslo?' },
        call,
        { type: 'function_call_output', call_id: call.call_id, output: '{"temp":-3}' },
      ];
      const second = await client.responses.create({ model, input, tools: [WEATHER] });
      expect(second.output_text).toMatch(/^Hello from /);
      const sent = fake().requestsFor(upstream).at(-1)?.body;
      expect(JSON.stringify(toolResultSent(family, sent))).toContain('temp');
      expect(JSON.stringify(toolResultSent(family, sent))).toContain(call.call_id);
    });
  },
);

describe('openai-node responses.stream with a tool round trip', () => {
  it('streams the function call arguments and the round trip’s answer', async () => {
    h.openai.script('model-a', [
      { toolCall: { name: 'get_weather', arguments: { city: 'Bergen', days: 3 } } },
    ]);
    const events: ResponseStreamEvent[] = [];
    const stream = client.responses.stream({ model: 'p', input: 'Weather?', tools: [WEATHER] });
    for await (const event of stream) events.push(event);
    const final = await stream.finalResponse();
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('response.created');
    expect(types).toContain('response.function_call_arguments.delta');
    expect(types.at(-1)).toBe('response.completed');
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const call = final.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('no function call');
    expect(JSON.parse(call.arguments)).toEqual({ city: 'Bergen', days: 3 });

    const again = client.responses.stream({
      model: 'p',
      tools: [WEATHER],
      input: [
        { role: 'user', content: 'Weather?' },
        { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
        { type: 'function_call_output', call_id: call.call_id, output: 'rain' },
      ],
    });
    expect((await again.finalResponse()).output_text).toMatch(/^Hello from model-a/);
    const messages = h.openai.requestsFor('model-a').at(-1)?.messages;
    expect(messages?.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(messages?.at(-1)?.text).toBe('rain');
  });
});

describe('the Responses door as chat’s peer', () => {
  it('falls back along the chain with the same evidence headers and ledger lines as chat', async () => {
    h.openai.script('model-a', [{ status: 503 }]);
    const { data, response } = await client.responses.create({ model: 'fb', input: 'hi' }).withResponse();
    expect(data.model).toBe('b');
    expect(response.headers.get('x-switchyard-route')).toBe('a:503,b:200');
    expect(response.headers.get('x-switchyard-attempts')).toBe('2');
    expect(h.requests().at(-1)).toMatchObject({ pipeline: 'fb', reason: 'success', attempts: 2, model: 'b' });
  });

  it('validates text.format json_schema and repairs a fenced answer, as chat does', async () => {
    h.openai.script('model-a', [{ text: '```json\n{"city":"Oslo"}\n```' }]);
    const res = await client.responses.create({
      model: 'p',
      input: 'city?',
      text: {
        format: {
          type: 'json_schema',
          name: 'place',
          strict: true,
          schema: {
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
            additionalProperties: false,
          },
        },
      },
    });
    expect(JSON.parse(res.output_text)).toEqual({ city: 'Oslo' });
  });

  it('serves responses.parse with zodTextFormat: output_parsed is the checked object', async () => {
    h.openai.script('model-a', [{ text: '{"city":"Oslo","temp":-3}' }]);
    const parsed = await client.responses.parse({
      model: 'p',
      input: 'weather as JSON',
      text: { format: zodTextFormat(z.object({ city: z.string(), temp: z.number() }), 'weather') },
    });
    expect(parsed.output_parsed).toEqual({ city: 'Oslo', temp: -3 });
    const sent = h.openai.requestsFor('model-a').at(-1)?.body as { response_format?: unknown };
    expect(sent.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'weather', strict: true },
    });
  });

  it('checks a streamed json_object answer at its end, as chat does: valid JSON completes, other text fails', async () => {
    const json = { model: 'p', input: 'json please', text: { format: { type: 'json_object' as const } } };
    h.openai.script('model-a', [{ text: '{"ok":true}' }, { text: 'Sure: yes' }]);
    const final = await client.responses.stream(json).finalResponse();
    expect(JSON.parse(final.output_text)).toEqual({ ok: true });
    expect(h.openai.requestsFor('model-a').at(-1)?.responseFormat).toEqual({ type: 'json_object' });
    await expect(client.responses.stream(json).finalResponse()).rejects.toMatchObject({
      code: 'stream_interrupted',
    });
  });

  it('carries max_output_tokens and reports a cut answer as incomplete', async () => {
    const res = await client.responses.create({ model: 'p', input: 'hi', max_output_tokens: 2 });
    expect(res.status).toBe('incomplete');
    expect(res.incomplete_details?.reason).toBe('max_output_tokens');
    expect(h.openai.requestsFor('model-a').at(-1)?.body).toMatchObject({ max_tokens: 2 });
  });

  it('ends a stream that fails after the commit with error and response.failed, raised by openai-node', async () => {
    h.openai.script('model-a', [{ status: 500, cutAfterChunks: 2 }]);
    const stream = client.responses.stream({ model: 'p', input: 'hello there' });
    const seen: string[] = [];
    stream.on('response.output_text.delta', (e) => seen.push(e.delta));
    await expect(stream.finalResponse()).rejects.toMatchObject({ code: 'stream_interrupted' });
    expect(seen.length).toBeGreaterThan(0);
    expect(h.requests().at(-1)).toMatchObject({ reason: 'partial', stream: true });

    h.openai.script('model-a', [{ status: 500, cutAfterChunks: 2 }]);
    const raw = await fetch(`${h.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'p', input: 'hello there', stream: true }),
    });
    const names = [...(await raw.text()).matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
    expect(names.slice(-2)).toEqual(['error', 'response.failed']);
  });
});

describe('what the Responses door refuses, through openai-node', () => {
  const refused = async (body: Record<string, unknown>) => {
    const error = await client.responses.create({ model: 'p', input: 'hi', ...body } as never).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    return error as InstanceType<typeof OpenAI.BadRequestError>;
  };

  it.each([
    [{ previous_response_id: 'resp_123' }, 'previous_response_id'],
    [{ store: true }, 'store'],
    [{ background: true }, 'background'],
    [{ conversation: 'conv_1' }, 'conversation'],
    [{ tools: [{ type: 'web_search' }] }, 'tools[0].type'],
    [{ tools: [WEATHER, { type: 'file_search', vector_store_ids: ['vs_1'] }] }, 'tools[1].type'],
    [
      {
        tools: [
          { type: 'computer_use_preview', display_width: 1, display_height: 1, environment: 'browser' },
        ],
      },
      'tools[0].type',
    ],
    [{ input: [{ type: 'item_reference', id: 'msg_1' }] }, 'input[0].type'],
  ])('refuses %j with a 400 whose param is %s, before any upstream call', async (body, param) => {
    const error = await refused(body);
    expect(error.status).toBe(400);
    expect(error.param).toBe(param);
    expect(error.message).toMatch(/instead|omit|only function tools|send the item itself/);
    expect(error.headers.get('x-should-retry')).toBe('false');
    expect(h.openai.requests).toHaveLength(0);
  });
});
