import type OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { MESSAGES, MODEL, useFakeOpenAIClient } from '../../helpers/fake-openai-client.js';

const TOOLS = [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } }];
const openai = useFakeOpenAIClient();

async function collect(
  params: Partial<ChatCompletionCreateParamsBase> = {},
  options: OpenAI.RequestOptions = {},
): Promise<ChatCompletionChunk[]> {
  const stream = await openai.client.chat.completions.create(
    { model: MODEL, messages: MESSAGES, ...params, stream: true },
    options,
  );
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

function textOf(chunks: ChatCompletionChunk[]): string {
  return chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
}

describe('OpenAI fake: successful answers', () => {
  it('answers a completion in the exact OpenAI shape with deterministic usage', async () => {
    const { data, response } = await openai.client.chat.completions
      .create({ model: MODEL, messages: MESSAGES })
      .withResponse();
    expect(data).toMatchObject({
      object: 'chat.completion',
      model: MODEL,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello from gpt-4o-mini.' },
          finish_reason: 'stop',
        },
      ],
      // 'Hello from gpt-4o-mini.' is 23 chars -> 6 tokens.
      usage: { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 },
    });
    expect(data.id).toMatch(/^chatcmpl-/);
    expect(typeof data.created).toBe('number');
    expect(response.headers.get('x-request-id')).toBe('req_fake_0');
    expect(openai.fake.requests).toEqual([
      expect.objectContaining({ model: MODEL, stream: false, aborted: false, answeredStatus: 200 }),
    ]);
  });

  it('streams content chunks, a finish chunk and a final usage chunk when include_usage is set', async () => {
    const chunks = await collect({ stream_options: { include_usage: true } });
    expect(textOf(chunks)).toBe('Hello from gpt-4o-mini.');
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBe(3);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({
      object: 'chat.completion.chunk',
      choices: [],
      usage: { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 },
    });
    expect(openai.fake.requests[0]).toMatchObject({ stream: true, answeredStatus: 200, aborted: false });
  });

  it('sends no usage chunk without include_usage', async () => {
    const chunks = await collect();
    expect(chunks.every((c) => c.usage == null)).toBe(true);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
  });

  it.each([
    ['max_tokens', { max_tokens: 2 }],
    ['max_completion_tokens', { max_completion_tokens: 2 }],
  ])('truncates the answer at %s with finish_reason length', async (_name, limit) => {
    const data = await openai.client.chat.completions.create({ model: MODEL, messages: MESSAGES, ...limit });
    expect(data.choices[0]?.message.content).toBe('Hello fr');
    expect(data.choices[0]?.finish_reason).toBe('length');
    expect(data.usage?.completion_tokens).toBe(2);
  });

  it('stops before a stop sequence', async () => {
    const data = await openai.client.chat.completions.create({
      model: MODEL,
      messages: MESSAGES,
      stop: [' from'],
    });
    expect(data.choices[0]?.message.content).toBe('Hello');
    expect(data.choices[0]?.finish_reason).toBe('stop');
  });

  it('answers with the scripted text and a forced finish reason', async () => {
    openai.fake.script(MODEL, [{ text: 'I cannot help with that.', finishReason: 'content_filter' }]);
    const data = await openai.client.chat.completions.create({ model: MODEL, messages: MESSAGES });
    expect(data.choices[0]).toMatchObject({
      message: { content: 'I cannot help with that.' },
      finish_reason: 'content_filter',
    });
  });

  it('answers with a tool call when the request offers tools', async () => {
    openai.fake.script(MODEL, [{ toolCall: { name: 'lookup', arguments: { city: 'Paris', days: 3 } } }]);
    const data = await openai.client.chat.completions.create({
      model: MODEL,
      messages: MESSAGES,
      tools: TOOLS,
    });
    const choice = data.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBeNull();
    const call = choice?.message.tool_calls?.[0];
    expect(call?.type).toBe('function');
    expect(call?.id).toMatch(/^call_/);
    if (call?.type !== 'function') throw new Error('expected a function call');
    expect(call.function.name).toBe('lookup');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Paris', days: 3 });
  });

  it('streams a tool call as argument pieces that join into the JSON arguments', async () => {
    openai.fake.script(MODEL, [{ toolCall: { name: 'lookup', arguments: { city: 'Paris', days: 3 } } }]);
    const chunks = await collect({ tools: TOOLS });
    const deltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(deltas[0]?.function?.name).toBe('lookup');
    expect(deltas.length).toBeGreaterThan(2);
    expect(JSON.parse(deltas.map((d) => d.function?.arguments ?? '').join(''))).toEqual({
      city: 'Paris',
      days: 3,
    });
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('answers with text when a tool call is scripted but the request offers no tools', async () => {
    openai.fake.script(MODEL, [{ toolCall: { name: 'lookup' } }]);
    const data = await openai.client.chat.completions.create({ model: MODEL, messages: MESSAGES });
    expect(data.choices[0]?.finish_reason).toBe('stop');
    expect(data.choices[0]?.message.tool_calls).toBeUndefined();
  });

  it('lists the models it knows about', async () => {
    openai.fake.setDefault('gpt-4.1', {});
    await openai.client.chat.completions.create({ model: MODEL, messages: MESSAGES });
    const models = await openai.client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['gpt-4.1', MODEL]);
  });
});

describe('OpenAI fake: request validation', () => {
  it('answers 400 in the OpenAI envelope naming the bad field', async () => {
    const res = await fetch(`${openai.fake.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string; type: string; param: string } };
    expect(body.error).toMatchObject({ type: 'invalid_request_error', param: 'messages' });
    expect(openai.fake.requests).toHaveLength(0);
  });

  it('answers 400 to a body that is not JSON', async () => {
    const res = await fetch(`${openai.fake.url}/chat/completions`, { method: 'POST', body: '{nope' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('parse the JSON');
  });

  it('answers 404 on an unknown path', async () => {
    const res = await fetch(`${openai.fake.url}/completions`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
  });
});
