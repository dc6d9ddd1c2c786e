import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHandlerRig, restEvent, startApiHandler } from '../../helpers/api-handler-harness.js';
import { invokeStreaming } from '../../helpers/lambda-runtime.js';

const CALLER_KEY = 'sy-caller-key-for-prelude-tests-0123';

let api: ApiHandlerRig;

beforeAll(async () => {
  api = await startApiHandler(({ upstream }) => ({
    config: {
      providers: { fake: { type: 'openai', baseURL: upstream.url } },
      models: { a: { provider: 'fake', model: 'model-a' } },
      pipelines: { p: { chain: 'a' } },
      aws: { ssmPrefix: '/switchyard' },
    },
    table: 'switchyard-breakers-prelude-test',
    callerKey: CALLER_KEY,
  }));
});

afterAll(() => api.stop());

describe('API Lambda handler: the streaming prelude', () => {
  it('writes the prelude for HEAD /healthz, whose answer has no body', async () => {
    const res = await invokeStreaming(api.handler, restEvent({ method: 'HEAD', path: '/healthz' }));
    expect(res.prelude).toBe(true);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
  });

  it('writes the prelude before a body, once', async () => {
    const res = await invokeStreaming(api.handler, restEvent({ method: 'GET', path: '/healthz' }));
    expect(res.prelude).toBe(true);
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ status: 'ok' });
  });
});
