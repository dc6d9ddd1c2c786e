import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHandlerRig, bearer, restEvent, startApiHandler } from '../../helpers/api-handler-harness.js';
import { invokeStreaming } from '../../helpers/lambda-runtime.js';

const PROVIDER_KEY = 'sk-provider-NeverLogThis-0123456789abcdef';
const CALLER_KEY = 'sy-caller-key-for-tests-0123456789';
const PROMPT = 'confidential: the launch date is the 14th';
const CACHE_MS = 300;

const event = (body: unknown, headers: Record<string, string> = bearer(CALLER_KEY)) =>
  restEvent({ body, headers });
const chat = (model = 'p') => ({ model, messages: [{ role: 'user', content: PROMPT }] });

let api: ApiHandlerRig;

beforeAll(async () => {
  api = await startApiHandler(({ ssm, upstream }) => {
    ssm.put('/switchyard/keys/fake', PROVIDER_KEY, { type: 'SecureString' });
    ssm.put('/switchyard/chains/p', 'b');
    return {
      config: {
        providers: { fake: { type: 'openai', baseURL: upstream.url, apiKeySecret: '/switchyard/keys/fake' } },
        models: {
          a: { provider: 'fake', model: 'model-a' },
          b: { provider: 'fake', model: 'model-b' },
          c: { provider: 'fake', model: 'model-c' },
        },
        pipelines: { p: { chain: 'a' } },
        aws: { ssmPrefix: '/switchyard', chainCacheMs: CACHE_MS },
      },
      table: 'switchyard-breakers-handler-test',
      callerKey: CALLER_KEY,
    };
  });
});

afterAll(() => api.stop());

describe('API Lambda handler (API Gateway REST events, dynalite, fake SSM, fake upstream)', () => {
  it('routes a request by the SSM chain', async () => {
    const res = await invokeStreaming(api.handler, event(chat()));
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-switchyard-model']).toBe('b');
    expect(JSON.parse(res.body).choices[0].message.content).toBe('Hello from model-b.');
  });

  it('routes by the new chain once the cache lifetime has passed after an edit (hot reroute)', async () => {
    api.ssm.put('/switchyard/chains/p', 'c,a');
    await new Promise((r) => setTimeout(r, CACHE_MS + 100));
    const res = await invokeStreaming(api.handler, event(chat()));
    expect(res.headers['x-switchyard-model']).toBe('c');
  });

  it('skips an SSM chain that resolves to nothing in favour of the config chain', async () => {
    api.ssm.put('/switchyard/chains/p', 'nosuchmodel');
    await new Promise((r) => setTimeout(r, CACHE_MS + 100));
    const res = await invokeStreaming(api.handler, event(chat()));
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-switchyard-model']).toBe('a');
    expect(api.output.text()).toContain('chain resolves to no model; source skipped');
  });

  it.each([
    ['a missing caller key', {}],
    ['a wrong caller key', { Authorization: 'Bearer sy-not-a-key' }],
  ])('answers 401 in the OpenAI envelope for %s', async (_name, headers) => {
    const res = await invokeStreaming(api.handler, event(chat(), headers));
    expect(res.statusCode).toBe(401);
    expect(JSON.parse(res.body).error.code).toBe('invalid_api_key');
  });

  it('streams server-sent events through the same handler', async () => {
    const res = await invokeStreaming(api.handler, event({ ...chat(), stream: true }));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/event-stream');
    expect(res.body).toContain('data: [DONE]');
  });

  it('keeps the provider key, the caller key and the prompt out of every log line', async () => {
    const logs = api.output.text();
    expect(logs).toContain('"type":"request"');
    expect(logs).toContain('"_aws"'); // EMF metrics
    expect(logs).not.toContain(PROVIDER_KEY);
    expect(logs).not.toContain(CALLER_KEY);
    expect(logs).not.toContain('launch date');
    expect(api.upstream.requests.length).toBeGreaterThan(0);
  });

  it('keeps routing by the last SSM chain while SSM fails, instead of reverting to the config', async () => {
    api.ssm.put('/switchyard/chains/p', 'b');
    await new Promise((r) => setTimeout(r, CACHE_MS + 100));
    expect((await invokeStreaming(api.handler, event(chat()))).headers['x-switchyard-model']).toBe('b');
    api.ssm.fail(
      'GetParametersByPath',
      { type: 'ThrottlingException', status: 400, message: 'Rate exceeded' },
      10,
    );
    await new Promise((r) => setTimeout(r, CACHE_MS + 100));
    const res = await invokeStreaming(api.handler, event(chat()));
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-switchyard-model']).toBe('b');
    expect(api.output.text()).toContain('SSM parameters unreadable; serving the last good snapshot');
  });
});
