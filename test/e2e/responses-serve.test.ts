/**
 * The new routes on a real `switchyard serve` process, as a user runs it: openai-node's
 * `responses.create` / `responses.stream` (with a tool round trip), the Vercel AI SDK's default
 * model, `models.retrieve` and the Anthropic SDK's `countTokens`, against the fakes.
 */

import { createOpenAI } from '@ai-sdk/openai';
import Anthropic from '@anthropic-ai/sdk';
import { streamText } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic } from '../../lambda/dev/fakes/anthropic-fake.js';
import type { FakeUpstream } from '../../lambda/dev/fakes/fake-upstream.js';
import { startFakeOpenAI } from '../../lambda/dev/fakes/openai-fake.js';
import { writeTempConfig } from '../helpers/cli-harness.js';
import { type ServeProcess, spawnServe } from '../helpers/serve-process.js';

let openaiFake: FakeUpstream;
let anthropicFake: FakeUpstream;
let serve: ServeProcess;
let url: string;

beforeAll(async () => {
  openaiFake = await startFakeOpenAI();
  anthropicFake = await startFakeAnthropic();
  const config = writeTempConfig({
    providers: {
      fake: { type: 'openai', baseURL: openaiFake.url, apiKeyEnv: 'FAKE_KEY' },
      an: { type: 'anthropic', baseURL: anthropicFake.url, apiKeyEnv: 'ANTHROPIC_KEY' },
    },
    models: { a: { provider: 'fake', model: 'model-a' }, an: { provider: 'an', model: 'claude-model' } },
    pipelines: { p: { chain: 'a' }, claude: { chain: 'an,a' } },
  });
  serve = spawnServe(['--config', config, '--port', '0'], {
    FAKE_KEY: 'sk-fake-0123456789',
    ANTHROPIC_KEY: 'sk-ant-0123456789',
  });
  url = await serve.url();
}, 30_000);
afterAll(async () => {
  serve?.proc.kill('SIGKILL');
  await Promise.all([openaiFake?.close(), anthropicFake?.close()]);
});

describe('switchyard serve with the Responses door', () => {
  it('serves openai-node responses.create and a streamed tool round trip', async () => {
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused-locally', maxRetries: 0 });
    const plain = await client.responses.create({ model: 'claude', input: 'hello there' });
    expect(plain).toMatchObject({
      status: 'completed',
      model: 'an',
      output_text: 'Hello from claude-model.',
    });

    openaiFake.script('model-a', [{ toolCall: { name: 'lookup', arguments: { q: 'x' } } }]);
    const tools = [
      { type: 'function' as const, name: 'lookup', parameters: { type: 'object' }, strict: false },
    ];
    const first = await client.responses.stream({ model: 'p', input: 'find x', tools }).finalResponse();
    const call = first.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('no function call');
    const second = await client.responses
      .stream({
        model: 'p',
        tools,
        input: [
          { role: 'user', content: 'find x' },
          call,
          { type: 'function_call_output', call_id: call.call_id, output: 'found' },
        ],
      })
      .finalResponse();
    expect(second.output_text).toBe('Hello from model-a.');
    expect(openaiFake.requestsFor('model-a').at(-1)?.messages?.at(-1)).toEqual({
      role: 'tool',
      text: 'found',
    });
  });

  it('serves the Vercel AI SDK’s default model, models.retrieve and Anthropic countTokens', async () => {
    const openai = createOpenAI({ baseURL: `${url}/v1`, apiKey: 'unused-locally' });
    const result = streamText({ model: openai('claude'), prompt: 'hello there', maxRetries: 0 });
    expect(await result.text).toBe('Hello from claude-model.');

    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused-locally', maxRetries: 0 });
    expect(await client.models.retrieve('claude')).toMatchObject({
      id: 'claude',
      owned_by: 'switchyard-pipeline',
    });

    const anthropic = new Anthropic({ baseURL: url, apiKey: 'unused-locally', maxRetries: 0 });
    const counted = await anthropic.messages
      .countTokens({ model: 'claude', messages: [{ role: 'user', content: 'twelve chars' }] })
      .withResponse();
    expect(counted.data).toEqual({ input_tokens: 3 });
    expect(counted.response.headers.get('x-switchyard-token-count')).toBe('upstream');
  });
});
