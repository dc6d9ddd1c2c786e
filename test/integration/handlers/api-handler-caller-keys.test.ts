import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHandlerRig, chatEvent, startApiHandler } from '../../helpers/api-handler-harness.js';
import { invokeStreaming } from '../../helpers/lambda-runtime.js';

const CALLER_KEY = 'sy-caller-key-for-503-tests-0123456789';
const CACHE_MS = 300;
/** Below the snapshot's longest lifetime (300 ms × 1.2), so the lifetime (360 ms) is the bound. */
const MAX_STALE_MS = 100;
/** After a failed read the snapshot waits 1 s (± 20 %) before the next one. */
const BACKOFF_MS = 1_200;

const event = () => chatEvent(CALLER_KEY);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let api: ApiHandlerRig;

beforeAll(async () => {
  api = await startApiHandler(({ ssm, upstream }) => {
    // Outside the prefix (read by GetParameters), so the provider key does not depend on the failing read.
    ssm.put('/sy503-keys/fake', 'sk-provider-key', { type: 'SecureString' });
    // SSM throttles from the container's first read on.
    ssm.fail('GetParametersByPath', { type: 'ThrottlingException', message: 'Rate exceeded' }, 1_000);
    return {
      config: {
        providers: { fake: { type: 'openai', baseURL: upstream.url, apiKeySecret: '/sy503-keys/fake' } },
        models: { a: { provider: 'fake', model: 'model-a' } },
        pipelines: { p: { chain: 'a' } },
        aws: { ssmPrefix: '/sy503', chainCacheMs: CACHE_MS, callerKeysMaxStaleMs: MAX_STALE_MS },
      },
      table: 'switchyard-breakers-503-test',
      callerKey: CALLER_KEY,
    };
  });
});

afterAll(() => api.stop());

describe('API Lambda handler without a good caller-key set (fail closed, but say why)', () => {
  it('answers 503 with Retry-After in the OpenAI envelope, never 401, while no key set was ever read', async () => {
    const res = await invokeStreaming(api.handler, event());
    expect(res.statusCode).toBe(503);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(res.body)).toEqual({
      error: {
        message: 'caller keys are unavailable; try again shortly',
        type: 'api_error',
        code: 'service_unavailable',
        param: null,
      },
    });
    expect(api.output.text()).toContain('caller keys unavailable; request refused');
    expect(api.upstream.requests).toHaveLength(0);
  });

  it('serves the caller once SSM answers again, after the backoff', async () => {
    api.ssm.fail('GetParametersByPath', { type: 'ThrottlingException' }, 0);
    await sleep(BACKOFF_MS);
    const res = await invokeStreaming(api.handler, event());
    expect(res.statusCode).toBe(200);
  });

  it('answers 503 again once the last good set is older than its maximum stale age while SSM fails', async () => {
    api.ssm.fail('GetParametersByPath', { type: 'ThrottlingException' }, 1_000);
    await sleep(CACHE_MS * 1.2 + 100);
    const res = await invokeStreaming(api.handler, event());
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(api.output.text()).toContain('caller keys too old; refusing callers');
  });
});
