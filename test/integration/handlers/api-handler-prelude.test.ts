import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHandlerRig, bearer, restEvent, startApiHandler } from '../../helpers/api-handler-harness.js';
import { invokeStreaming } from '../../helpers/lambda-runtime.js';

const CALLER_KEY = 'sy-caller-key-for-prelude-tests-0123';
const ORIGIN = 'https://app.example.com';

let api: ApiHandlerRig;

beforeAll(async () => {
  api = await startApiHandler(({ upstream }) => ({
    config: {
      providers: { fake: { type: 'openai', baseURL: upstream.url } },
      models: { a: { provider: 'fake', model: 'model-a' } },
      pipelines: { p: { chain: 'a' } },
      aws: { ssmPrefix: '/switchyard' },
      cors: { allowOrigins: [ORIGIN] },
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

  it('answers a CORS preflight with 204, its prelude and the allowed origin, before any caller key is asked for', async () => {
    const res = await invokeStreaming(
      api.handler,
      restEvent({
        method: 'OPTIONS',
        path: '/v1/chat/completions',
        headers: {
          Origin: ORIGIN,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization,content-type',
        },
      }),
    );
    expect(res.prelude).toBe(true);
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(res.headers['access-control-allow-methods']).toContain('POST');
  });

  it('gives a request from an allowed origin its allow-origin header', async () => {
    const res = await invokeStreaming(
      api.handler,
      restEvent({
        body: { model: 'p', messages: [{ role: 'user', content: 'hi' }] },
        headers: { ...bearer(CALLER_KEY), Origin: ORIGIN },
      }),
    );
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
  });
});
