import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestLedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { type GatewayHarness, HELLO, startGatewayHarness } from '../helpers/gateway-harness.js';

/** The gateway's own request ids. */
const GATEWAY_ID = /^req_[0-9a-f]{32}$/;

let h: GatewayHarness;
/** The ledger's request line of the request with this gateway id. */
const requestLine = (id: string | null) =>
  h.requests().find((l): l is RequestLedgerEntry => l.type === 'request' && l.requestId === id);
beforeAll(async () => {
  h = await startGatewayHarness(
    { p: { chain: 'a' } },
    {
      maxBodyBytes: 4_096,
      configure: (config) => {
        config.limits = { maxMessages: 5, maxEchoChars: 16 };
        config.models.b = { ...config.models.b, maxOutputTokens: 100 };
      },
    },
  );
});
afterAll(async () => {
  await h.close();
});

const jsonSchema = (schema: Record<string, unknown>) => ({
  type: 'json_schema',
  json_schema: { name: 's', schema },
});
/** `{ not: { not: … {} } }`, `depth` JSON values deep. */
const notNested = (depth: number) => {
  let schema: Record<string, unknown> = {};
  for (let i = 1; i < depth; i++) schema = { not: schema };
  return schema;
};

describe('bad input over HTTP', () => {
  it.each([
    ['malformed JSON', '{"model": "p", "messages": [', 400, 'invalid_json', null],
    ['a body that is not an object', '[1,2,3]', 400, 'invalid_value', null],
    ['missing messages', { model: 'p' }, 400, 'invalid_value', 'messages'],
    ['empty messages', { model: 'p', messages: [] }, 400, 'invalid_value', 'messages'],
    [
      'a message without a role',
      { model: 'p', messages: [{ content: 'x' }] },
      400,
      'invalid_value',
      'messages[0].role',
    ],
    ['a wrong type', { model: 'p', ...HELLO, temperature: 'hot' }, 400, 'invalid_value', 'temperature'],
    [
      'a temperature out of range',
      { model: 'p', ...HELLO, temperature: 7 },
      400,
      'invalid_value',
      'temperature',
    ],
    ['n > 1', { model: 'p', ...HELLO, n: 2 }, 400, 'invalid_value', 'n'],
    ['an unknown pipeline', { model: 'no-such-pipeline', ...HELLO }, 404, 'model_not_found', 'model'],
    ['no model at all', { ...HELLO }, 404, 'model_not_found', 'model'],
    [
      'more messages than limits.maxMessages',
      { model: 'p', messages: Array.from({ length: 6 }, () => ({ role: 'user', content: 'x' })) },
      400,
      'limit_exceeded',
      'messages',
    ],
    [
      'max_tokens over the default output bound',
      { model: 'p', ...HELLO, max_tokens: 32_769 },
      400,
      'limit_exceeded',
      'max_tokens',
    ],
    [
      'max_tokens of 2^53-1',
      { model: 'p', ...HELLO, max_tokens: Number.MAX_SAFE_INTEGER },
      400,
      'limit_exceeded',
      'max_tokens',
    ],
    [
      "max_completion_tokens over a chain model's maxOutputTokens",
      { model: 'a,b', ...HELLO, max_completion_tokens: 101 },
      400,
      'limit_exceeded',
      'max_completion_tokens',
    ],
    [
      'a response_format pattern with a lookahead',
      { model: 'p', ...HELLO, response_format: jsonSchema({ pattern: '^(?=a)' }) },
      400,
      'invalid_request',
      null,
    ],
    [
      'a response_format pattern with a backreference',
      { model: 'p', ...HELLO, response_format: jsonSchema({ patternProperties: { '(a)\\1': {} } }) },
      400,
      'invalid_request',
      null,
    ],
    [
      'a response_format pattern longer than structuredOutput.maxPatternChars',
      { model: 'p', ...HELLO, response_format: jsonSchema({ pattern: 'a'.repeat(1_001) }) },
      400,
      'invalid_request',
      null,
    ],
    [
      'a response_format schema deeper than structuredOutput.maxSchemaDepth',
      { model: 'p', ...HELLO, response_format: jsonSchema(notNested(33)) },
      400,
      'invalid_request',
      null,
    ],
  ])('answers %s with the right 4xx in the OpenAI envelope', async (_name, body, status, code, param) => {
    const res = await h.post(body);
    expect(res.status).toBe(status);
    const json = await res.json();
    expect(json.error).toMatchObject({ code, param });
    expect(typeof json.error.message).toBe('string');
    expect(json.error.message).not.toMatch(/\n\s+at /);
    if (param) expect(json.error.message).toContain(param);
  });

  it('answers 413 for a body over the limit', async () => {
    const res = await h.post(
      { model: 'p', messages: [{ role: 'user', content: 'x'.repeat(10_000) }] },
      { 'x-request-id': 'big-1' },
    );
    expect(res.status).toBe(413);
    expect(res.headers.get('x-request-id')).toBe('big-1');
    expect(res.headers.get('x-switchyard-request-id')).toMatch(GATEWAY_ID);
    expect((await res.json()).error.code).toBe('request_too_large');
  });

  it('answers 413 for a chunked body (no content-length) over the limit', async () => {
    const chunk = new TextEncoder().encode(
      `{"model":"p","messages":[{"role":"user","content":"${'y'.repeat(6_000)}"}]}`,
    );
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(chunk);
        controller.close();
      },
    });
    const res = await fetch(`${h.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
  });

  it('states the limit it enforces, and takes a request exactly at each limit', async () => {
    const tokens = await h.post({ model: 'a,b', ...HELLO, max_completion_tokens: 101 });
    expect((await tokens.json()).error.message).toBe(
      "max_completion_tokens: at most 100 (the limit of model 'b'), got 101",
    );
    const atLimits = await h.post({
      model: 'a,b',
      max_tokens: 100,
      messages: Array.from({ length: 5 }, () => ({ role: 'user', content: 'x' })),
    });
    expect(atLimits.status).toBe(200);
    const defaultBound = await h.post({ model: 'p', ...HELLO, max_tokens: 32_768 });
    expect(defaultBound.status).toBe(200);
  });

  it('cuts a long x-switchyard-pipeline header before echoing it in the 404', async () => {
    const res = await h.post(HELLO, { 'x-switchyard-pipeline': 'x'.repeat(1_000) });
    expect(res.status).toBe(404);
    expect((await res.json()).error.message).toBe(`unknown pipeline '${'x'.repeat(16)}…'`);
  });

  it('names an unknown pipeline given in the x-switchyard-pipeline header', async () => {
    const res = await h.post(HELLO, { 'x-switchyard-pipeline': 'nope' });
    expect(res.status).toBe(404);
    expect((await res.json()).error).toMatchObject({
      param: 'x-switchyard-pipeline',
      message: "unknown pipeline 'nope'",
    });
  });

  it('routes by the x-switchyard-pipeline header', async () => {
    const res = await h.post({ model: 'ignored', ...HELLO }, { 'x-switchyard-pipeline': 'p' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-model')).toBe('a');
  });

  it('reads a model that is not a pipeline as a chain over the catalog', async () => {
    const res = await h.post({ model: 'b,c', ...HELLO });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-model')).toBe('b');
  });

  it('reads a chain: id (as jobs store ad-hoc chains) as the chain it names, without warnings', async () => {
    const res = await h.post({ model: 'chain:c,b', ...HELLO });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-model')).toBe('c');
    expect(res.headers.get('x-switchyard-route')).toBe('c:200');
  });

  it('echoes the caller x-request-id, but answers and writes the ledger under an id of its own', async () => {
    const res = await h.post({ model: 'p', ...HELLO }, { 'x-request-id': 'trace-42' });
    expect(res.headers.get('x-request-id')).toBe('trace-42');
    const id = res.headers.get('x-switchyard-request-id');
    expect(id).toMatch(GATEWAY_ID);
    expect(((await res.json()) as { id: string }).id).toBe(`chatcmpl-${id}`);
    expect(requestLine(id)).toMatchObject({ requestId: id, clientRequestId: 'trace-42' });
  });

  it('keeps a caller x-request-id of exactly 128 characters', async () => {
    const long = `${'a'.repeat(120)}.:@/+=-_`;
    expect(long).toHaveLength(128);
    const res = await h.post({ model: 'p', ...HELLO }, { 'x-request-id': long });
    expect(res.headers.get('x-request-id')).toBe(long);
    expect(requestLine(res.headers.get('x-switchyard-request-id'))?.clientRequestId).toBe(long);
  });

  it.each([
    ['129 characters', 'a'.repeat(129)],
    ['a space', 'trace 42'],
    ['markup', '<script>'],
    ['a quote', 'trace"42'],
    ['a tab', 'trace\t42'],
    ['nothing', ''],
  ])('drops a caller x-request-id with %s: neither echoed nor kept', async (_name, value) => {
    const res = await h.post({ model: 'p', ...HELLO }, { 'x-request-id': value });
    expect(res.status).toBe(200);
    const id = res.headers.get('x-switchyard-request-id');
    expect(id).toMatch(GATEWAY_ID);
    expect(res.headers.get('x-request-id')).toBe(id);
    const line = requestLine(id);
    expect(line?.requestId).toBe(id);
    expect(line).not.toHaveProperty('clientRequestId');
  });

  it('answers an unknown route with 404 in the envelope', async () => {
    const res = await fetch(`${h.url}/v1/nope`);
    expect(res.status).toBe(404);
    expect(res.headers.get('x-request-id')).toMatch(GATEWAY_ID);
    expect(res.headers.get('x-switchyard-request-id')).toBe(res.headers.get('x-request-id'));
    expect((await res.json()).error.code).toBe('not_found');
  });
});

/** `{"a":{"a":…}}`, `levels` objects deep (5 bytes a level). */
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

describe('deeply nested JSON over HTTP (issue 26: these answered 500 or opened breakers)', () => {
  let deep: GatewayHarness;
  beforeAll(async () => {
    // The default body limit (1 MiB): these bodies are 25 KB.
    deep = await startGatewayHarness({ p: { chain: 'a' } });
  });
  afterAll(() => deep.close());

  it.each([
    [
      'a 5,000-deep response_format schema',
      `{"model":"p","messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_schema","json_schema":{"name":"s","schema":${nested(5_000)}}}}`,
      'response_format.json_schema.schema.a.a.a.a.a…',
    ],
    [
      '5,000-deep tool parameters',
      `{"model":"p","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f","parameters":${nested(5_000)}}}]}`,
      'tools[0].function.parameters.a.a.a.a…',
    ],
    [
      '5,000-deep tool parameters, streamed',
      `{"model":"p","stream":true,"messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f","parameters":${nested(5_000)}}}]}`,
      'tools[0].function.parameters.a.a.a.a…',
    ],
  ])('answers %s with 400 limit_exceeded naming the field, never a 500', async (_name, body, param) => {
    const res = await deep.post(body);
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error).toMatchObject({ type: 'invalid_request_error', code: 'limit_exceeded', param });
    expect(error.message).toBe(
      `${param}: nested deeper than 64 levels of objects and arrays (limits.maxJsonDepth)`,
    );
    expect(deep.received('model-a')).toBe(0);
  });
});

describe('info endpoints', () => {
  it('lists pipelines and model keys in the OpenAI model list', async () => {
    const list = await h.client.models.list();
    expect(list.data.map((m) => m.id)).toEqual(['p', 'a', 'b', 'c', 'br', 'quick']);
  });

  it('shows each pipeline with its effective chain, source and policy', async () => {
    const body = await (await fetch(`${h.url}/v1/pipelines`)).json();
    expect(body.data).toEqual([
      expect.objectContaining({
        name: 'p',
        chain: 'a',
        source: 'config',
        tiers: [['a']],
        policy: expect.objectContaining({ maxAttempts: 3 }),
      }),
    ]);
  });

  it('shows the breakers of a pipeline, and answers 404 for a name that routes nowhere', async () => {
    const body = await (await fetch(`${h.url}/v1/breakers?pipeline=p`)).json();
    expect(body.data).toEqual([expect.objectContaining({ pipeline: 'p', model: 'a', state: 'closed' })]);
    const unknown = await fetch(`${h.url}/v1/breakers?pipeline=q`);
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.param).toBe('pipeline');
  });

  it('answers /healthz', async () => {
    expect(await (await fetch(`${h.url}/healthz`)).json()).toEqual({ status: 'ok' });
  });
});
