/**
 * `POST /v1/messages` over real HTTP, driven by the official `@anthropic-ai/sdk` client pointed at
 * the gateway, unchanged: plain answers, streams, tools, errors in Anthropic's envelope, and the
 * same evidence (headers, ledger) as chat completions.
 */
import Anthropic, { type APIError } from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestLedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { type GatewayHarness, startGatewayHarness, waitFor } from '../helpers/gateway-harness.js';

let h: GatewayHarness;
afterEach(async () => {
  await h?.close();
});

const CALLER_KEY = 'sk-caller-0123456789';
const client = (apiKey = 'caller-key') => new Anthropic({ baseURL: h.url, apiKey, maxRetries: 0 });
const ASK = {
  model: 'p',
  max_tokens: 200,
  system: 'Be brief.',
  messages: [{ role: 'user' as const, content: 'Say hello' }],
};
const LOOKUP = {
  name: 'lookup',
  description: 'Look a thing up',
  input_schema: { type: 'object' as const, properties: { q: { type: 'string' } } },
};

describe('POST /v1/messages with the Anthropic SDK', () => {
  it('answers a Messages request from an OpenAI-compatible model, system prompt in place', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    const { data: message, response } = await client().messages.create(ASK).withResponse();
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'a',
      content: [{ type: 'text', text: 'Hello from model-a.' }],
      stop_reason: 'end_turn',
      usage: {
        input_tokens: 5,
        output_tokens: 5,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
      },
    });
    expect(response.headers.get('x-switchyard-model')).toBe('a');
    expect(response.headers.get('x-switchyard-route')).toBe('a:200');
    expect(h.openai.requests[0]?.messages).toEqual([
      { role: 'system', text: 'Be brief.' },
      { role: 'user', text: 'Say hello' },
    ]);
    expect(h.openai.requests[0]?.body).toMatchObject({ max_tokens: 200 });
  });

  it('falls back across families: an Anthropic 529 goes on to the OpenAI-compatible model', async () => {
    h = await startGatewayHarness({ p: { chain: 'an,a' } }, { anthropic: true });
    h.anthropic.script('claude-model', [{ status: 529 }]);
    const { data, response } = await client().messages.create(ASK).withResponse();
    expect(data.model).toBe('a');
    expect(response.headers.get('x-switchyard-route')).toBe('an:529,a:200');
    await waitFor(() => h.requests().length === 1);
    expect(h.requests()[0] as RequestLedgerEntry).toMatchObject({
      reason: 'success',
      model: 'a',
      attempts: 2,
    });
  });

  it('skips an Anthropic model whose key is not set as not_configured, and uses the key once it is', async () => {
    h = await startGatewayHarness({ p: { chain: 'an,a' } }, { anthropic: true });
    delete h.env.ANTHROPIC_KEY;
    const { data, response } = await client().messages.create(ASK).withResponse();
    expect(data.model).toBe('a');
    expect(response.headers.get('x-switchyard-route')).toBe('an:not_configured,a:200');
    expect(h.received('claude-model')).toBe(0);
    h.env.ANTHROPIC_KEY = 'sk-ant-test-later-0123456789';
    expect((await client().messages.create(ASK)).model).toBe('an');
  });

  it('streams Anthropic events the SDK assembles into the final message', async () => {
    h = await startGatewayHarness({ p: { chain: 'br' } });
    const stream = client().messages.stream(ASK);
    const types: string[] = [];
    stream.on('streamEvent', (event) => types.push(event.type));
    const message = await stream.finalMessage();
    expect(message.content).toMatchObject([{ type: 'text', text: 'Hello from bedrock-model.' }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toMatchObject({ input_tokens: 5, output_tokens: 7 });
    expect(types[0]).toBe('message_start');
    expect(types.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    expect(types.filter((t) => t === 'content_block_delta').length).toBeGreaterThan(1);
  });

  it('round-trips a tool call: tool_use from the model, tool_result back on the next turn', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    h.openai.script('model-a', [
      { toolCall: { name: 'lookup', arguments: { q: 'x' } } },
      { text: 'Found it.' },
    ]);
    const first = await client().messages.create({ ...ASK, tools: [LOOKUP], tool_choice: { type: 'any' } });
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content).toEqual([
      { type: 'tool_use', id: 'call_fake_0', name: 'lookup', input: { q: 'x' } },
    ]);
    expect(h.openai.requests[0]?.body).toMatchObject({
      tools: [{ type: 'function', function: { name: 'lookup', parameters: LOOKUP.input_schema } }],
      tool_choice: 'required',
    });
    const second = await client().messages.create({
      ...ASK,
      tools: [LOOKUP],
      messages: [
        ...ASK.messages,
        { role: 'assistant', content: first.content as Anthropic.ContentBlockParam[] },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'call_fake_0', content: '{"found":true}' }],
        },
      ],
    });
    expect(second.content).toEqual([{ type: 'text', text: 'Found it.' }]);
    expect(h.openai.requests[1]?.body).toMatchObject({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_fake_0', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_fake_0', content: '{"found":true}' },
      ],
    });
  });

  it('streams a tool call as a tool_use block the SDK parses into its input', async () => {
    h = await startGatewayHarness({ p: { chain: 'an' } }, { anthropic: true });
    h.anthropic.script('claude-model', [
      { toolCall: { name: 'lookup', arguments: { q: 'a longer query' } } },
    ]);
    const message = await client()
      .messages.stream({ ...ASK, tools: [LOOKUP] })
      .finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([
      { type: 'tool_use', id: 'toolu_fake_0', name: 'lookup', input: { q: 'a longer query' } },
    ]);
  });

  it('ends a stream that fails after output with an error event the SDK raises', async () => {
    h = await startGatewayHarness({ p: { chain: 'a,b' } });
    h.openai.script('model-a', [{ text: 'one two three four', cutAfterChunks: 2, status: 503 }]);
    const stream = client().messages.stream(ASK);
    const texts: string[] = [];
    stream.on('text', (text) => texts.push(text));
    const error = await stream.finalMessage().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as APIError).message).toContain('failed after output started');
    expect(texts.join('')).toBe('one two');
    await waitFor(() => h.requests().length === 1);
    expect(h.requests()[0] as RequestLedgerEntry).toMatchObject({ reason: 'partial', stream: true });
  });
});

describe('POST /v1/messages errors, in Anthropic’s envelope', () => {
  const envelope = async (res: Response) => ({ status: res.status, body: await res.json() });

  it('names a missing max_tokens, as Anthropic requires it', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    const { model, system, messages } = ASK;
    const { status, body } = await envelope(await h.postMessages({ model, system, messages }));
    expect(status).toBe(400);
    expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(body.error.message).toMatch(/^max_tokens: /);
    expect(body.request_id).toEqual(expect.any(String));
    expect(h.received('model-a')).toBe(0);
  });

  it('carries an image block to the route instead of refusing it (content parts)', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA==' } };
    const res = await h.postMessages({ ...ASK, messages: [{ role: 'user', content: [image] }] });
    expect(res.status).toBe(200);
    const received = h.openai.requestsFor('model-a')[0]?.body as { messages: { content: unknown }[] };
    expect(received.messages.at(-1)?.content).toEqual([
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } },
    ]);
  });

  it('refuses an image source the gateway cannot carry (an uploaded file id), naming the field', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    const image = { type: 'image', source: { type: 'file', file_id: 'file_1' } };
    const res = await h.postMessages({ ...ASK, messages: [{ role: 'user', content: [image] }] });
    const { status, body } = await envelope(res);
    expect(status).toBe(400);
    expect(body.error.message).toMatch(/^messages\[0\]\.content: /);
    expect(h.received('model-a')).toBe(0);
  });

  it('refuses a 5,000-deep tool_use.input with invalid_request_error naming the field, never a 500', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    const input = `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`;
    const res = await h.postMessages(
      `{"model":"p","max_tokens":16,"messages":[{"role":"user","content":"look it up"},` +
        `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"lookup","input":${input}}]},` +
        `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"found"}]}]}`,
    );
    const { status, body } = await envelope(res);
    expect(status).toBe(400);
    expect(body.error).toEqual({
      type: 'invalid_request_error',
      message:
        'messages[1].content[0].input.a.a.a…: nested deeper than 64 levels of objects and arrays (limits.maxJsonDepth)',
    });
    expect(h.received('model-a')).toBe(0);
  });

  it('answers an unknown model with not_found_error, which the SDK raises as NotFoundError', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    const error = await client()
      .messages.create({ ...ASK, model: 'nope' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect((error as APIError).type).toBe('not_found_error');
  });

  it('passes an upstream invalid request through as invalid_request_error, with no fallback', async () => {
    h = await startGatewayHarness({ p: { chain: 'an,a' } }, { anthropic: true });
    h.anthropic.script('claude-model', [{ status: 400, errorMessage: 'messages: roles must alternate' }]);
    const { status, body } = await envelope(await h.postMessages(ASK));
    expect(status).toBe(400);
    expect(body.error).toEqual({ type: 'invalid_request_error', message: 'messages: roles must alternate' });
    expect(h.received('model-a')).toBe(0);
  });

  it('answers every route rate limited with rate_limit_error and Retry-After', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } });
    h.openai.setDefault('model-a', { status: 429, retryAfter: 7 });
    const res = await h.postMessages(ASK);
    const { status, body } = await envelope(res);
    expect(status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(res.headers.get('x-switchyard-route')).toBe('a:429,a:429,a:429');
    expect(body.error.type).toBe('rate_limit_error');
  });

  it('refuses a body over the limit with request_too_large', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } }, { maxBodyBytes: 1_000 });
    const res = await h.postMessages({ ...ASK, system: 'x'.repeat(2_000) });
    const { status, body } = await envelope(res);
    expect(status).toBe(413);
    expect(body.error.type).toBe('request_too_large');
  });

  it('checks caller keys: 401 authentication_error without one; the SDK with a good key gets through', async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } }, { auth: { keys: { team: CALLER_KEY } } });
    const refused = await envelope(await h.postMessages(ASK));
    expect(refused).toMatchObject({ status: 401, body: { error: { type: 'authentication_error' } } });
    const wrong = await client('sk-wrong')
      .messages.create(ASK)
      .catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(Anthropic.AuthenticationError);
    const ok = await client(CALLER_KEY).messages.create(ASK);
    expect(ok.model).toBe('a');
    const viaHeader = await h.postMessages(ASK, { 'x-api-key': CALLER_KEY });
    expect(viaHeader.status).toBe(200);
  });
});
