import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoadedHandler, loadApiHandler, restEvent } from '../../helpers/api-handler-harness.js';
import { writeTempConfig } from '../../helpers/cli-harness.js';
import { DYNALITE_ENV } from '../../helpers/dynalite.js';
import { invokeStreaming } from '../../helpers/lambda-runtime.js';

let api: LoadedHandler;

beforeAll(async () => {
  api = await loadApiHandler({
    ...DYNALITE_ENV,
    // Nothing listens here: the breaker table cannot be reached, so the gateway cannot start.
    AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:9',
    SWITCHYARD_CONFIG: writeTempConfig({
      providers: { fake: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1' } },
      models: { a: { provider: 'fake', model: 'model-a' } },
      pipelines: { p: { chain: 'a' } },
    }),
    SWITCHYARD_STORE: 'dynamodb',
    SWITCHYARD_TABLE: 'unreachable',
  });
});

afterAll(() => api.restore());

describe('API Lambda handler when the gateway cannot start', () => {
  it('answers 503 in the OpenAI envelope and logs the cause without a stack trace for the caller', async () => {
    const event = restEvent({ body: { model: 'p', messages: [{ role: 'user', content: 'hi' }] } });
    const res = await invokeStreaming(api.handler, event);
    expect(res.statusCode).toBe(503);
    expect(JSON.parse(res.body).error.code).toBe('service_unavailable');
    expect(res.body).not.toMatch(/\n\s+at /);
    expect(api.output.text()).toContain('gateway failed to start');
  }, 20_000);
});
