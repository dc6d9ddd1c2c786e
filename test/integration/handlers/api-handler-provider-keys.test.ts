import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHandlerRig, chatEvent, startApiHandler } from '../../helpers/api-handler-harness.js';
import { invokeStreaming } from '../../helpers/lambda-runtime.js';

// Shaped like real keys; assembled at runtime so secret scanners stay quiet.
const LATE_KEY = ['sk', 'late', 'Rk2nW8qZ5vT1mY7cX4bH9dL3'].join('-');
const KEYED_KEY = ['sk', 'keyed', 'Pq6sV1nK8wF3zJ5tG2mA7cE4'].join('-');
const CALLER_KEY = 'sy-caller-key-for-key-tests-0123456789';
const CACHE_MS = 300;
const TABLE = 'switchyard-breakers-provider-keys-test';

const event = () => chatEvent(CALLER_KEY);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let api: ApiHandlerRig;

/** The breaker item of (p, model) exactly as DynamoDB holds it; undefined when never written. */
async function breakerItem(model: string) {
  const client = new DynamoDBClient({
    endpoint: api.dynalite.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'dynalite', secretAccessKey: 'dynalite' },
  });
  const out = await client.send(
    new GetItemCommand({
      TableName: TABLE,
      Key: { pipeline: { S: 'p' }, model: { S: model } },
      ConsistentRead: true,
    }),
  );
  client.destroy();
  return out.Item;
}

beforeAll(async () => {
  api = await startApiHandler(({ ssm, upstream }) => {
    ssm.put('/syk/keys/keyed', KEYED_KEY, { type: 'SecureString' });
    // '/syk/keys/late' does not exist yet: the operator has not written it.
    return {
      config: {
        providers: {
          late: { type: 'openai', baseURL: upstream.url, apiKeySecret: '/syk/keys/late' },
          keyed: { type: 'openai', baseURL: upstream.url, apiKeySecret: '/syk/keys/keyed' },
        },
        models: {
          a: { provider: 'late', model: 'model-a' },
          b: { provider: 'keyed', model: 'model-b' },
        },
        pipelines: { p: { chain: 'a,b' } },
        aws: { ssmPrefix: '/syk', chainCacheMs: CACHE_MS },
      },
      table: TABLE,
      callerKey: CALLER_KEY,
    };
  });
});

afterAll(() => api.stop());

describe('API Lambda handler with a missing provider key', () => {
  it('serves the request from the next route and leaves the shared breaker item of that model untouched', async () => {
    for (let i = 0; i < 3; i += 1) {
      const res = await invokeStreaming(api.handler, event());
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-switchyard-model']).toBe('b');
      expect(res.headers['x-switchyard-route']).toBe('a:not_configured,b:200');
    }
    expect(api.upstream.requestsFor('model-a')).toHaveLength(0);
    expect(await breakerItem('a')).toBeUndefined();
    expect(await breakerItem('b')).toBeDefined(); // the table does record the model that answered
    expect(api.output.text()).toContain('provider key missing; its models are skipped as not_configured');
    expect(api.output.text()).not.toContain('"reason":"upstream_auth"');
  });

  it('uses the model again once the key is written, in the same container, after the snapshot lifetime', async () => {
    api.ssm.put('/syk/keys/late', LATE_KEY, { type: 'SecureString' });
    await sleep(CACHE_MS * 1.2 + 100);
    // The first request after the lifetime reads the snapshot (caller keys) before any attempt.
    const res = await invokeStreaming(api.handler, event());
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-switchyard-model']).toBe('a');
    expect(res.headers['x-switchyard-route']).toBe('a:200');
    expect(api.upstream.requestsFor('model-a')).toHaveLength(1);
    expect(api.output.text()).toContain('provider key loaded');
    expect(api.output.text()).not.toContain(LATE_KEY);
  });
});
