import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic } from '../../../lambda/dev/fakes/anthropic-fake.js';
import { startFakeBedrock } from '../../../lambda/dev/fakes/bedrock-fake.js';
import type { FakeUpstream } from '../../../lambda/dev/fakes/fake-upstream.js';
import { type ApiBundle, bundleApiHandler } from '../../helpers/api-bundle.js';
import { type ApiHandlerRig, chatEvent, startApiHandler } from '../../helpers/api-handler-harness.js';
import { invokeStreaming } from '../../helpers/lambda-runtime.js';

/**
 * The API handler as deployed is split (`LAMBDA_BUNDLE.splitting`): the Anthropic and Bedrock
 * adapters with their SDKs, ajv and the RE2 engine are chunks that load on first use. Each of them
 * must load from the bundle's own directory and answer as the eager build does.
 */
const CALLER_KEY = 'sy-caller-key-for-lazy-chunks-0123456789';
let bundle: ApiBundle;
let api: ApiHandlerRig;
let anthropic: FakeUpstream;
let bedrock: FakeUpstream;

beforeAll(async () => {
  [bundle, anthropic, bedrock] = await Promise.all([
    bundleApiHandler(),
    startFakeAnthropic(),
    startFakeBedrock(),
  ]);
  api = await startApiHandler(
    ({ ssm, upstream }) => {
      ssm.put('/switchyard/keys/fake', 'sk-provider-lazy', { type: 'SecureString' });
      ssm.put('/switchyard/keys/anthropic', 'sk-ant-lazy', { type: 'SecureString' });
      return {
        config: {
          providers: {
            fake: { type: 'openai', baseURL: upstream.url, apiKeySecret: '/switchyard/keys/fake' },
            an: { type: 'anthropic', baseURL: anthropic.url, apiKeySecret: '/switchyard/keys/anthropic' },
            br: { type: 'bedrock', region: 'us-east-1', endpoint: bedrock.url },
          },
          models: {
            a: { provider: 'fake', model: 'model-a' },
            claude: { provider: 'an', model: 'claude-model' },
            llama: { provider: 'br', model: 'bedrock-model' },
          },
          pipelines: { p: { chain: 'a', maxAttempts: 1 } },
          aws: { ssmPrefix: '/switchyard', allowInsecureBaseURLs: true },
        },
        table: 'switchyard-lazy-chunks-test',
        callerKey: CALLER_KEY,
      };
    },
    { entry: bundle.entry },
  );
}, 60_000);

afterAll(async () => {
  await api?.stop();
  await Promise.all([anthropic?.close(), bedrock?.close()]);
  bundle?.remove();
});

const ask = (body: Record<string, unknown>) =>
  invokeStreaming(
    api.handler,
    chatEvent(CALLER_KEY, { messages: [{ role: 'user', content: 'hi' }], ...body }),
  );

describe('API Lambda bundle: code loaded on first use', () => {
  it('answers on an Anthropic route through the adapter chunk', async () => {
    const res = await ask({ model: 'claude' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-switchyard-route']).toBe('claude:200');
    expect(anthropic.requestsFor('claude-model')).toHaveLength(1);
  });

  it('streams on an Anthropic route (the chunk is loaded once, shared by every call)', async () => {
    const res = await ask({ model: 'claude', stream: true });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('data: [DONE]');
    expect(anthropic.requestsFor('claude-model')).toHaveLength(2);
  });

  it('answers on a Bedrock route through the adapter chunk', async () => {
    const res = await ask({ model: 'llama' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-switchyard-route']).toBe('llama:200');
    expect(bedrock.requestsFor('bedrock-model')).toHaveLength(1);
  });

  it("checks an answer against a schema's pattern with the ajv and RE2 chunks", async () => {
    const schema = {
      type: 'object',
      properties: { code: { type: 'string', pattern: '^[A-Z]{2}-[0-9]{2}$' } },
      required: ['code'],
    };
    const format = { type: 'json_schema', json_schema: { name: 'c', schema } };
    api.upstream.setDefault('model-a', { text: '{"code":"AB-12"}' });
    expect((await ask({ model: 'p', response_format: format })).statusCode).toBe(200);
    api.upstream.setDefault('model-a', { text: '{"code":"nope"}' });
    const refused = await ask({ model: 'p', response_format: format });
    expect(refused.statusCode).toBe(502);
    expect(JSON.parse(refused.body).error.message).toContain('/code must match pattern');
  });
});
