import { readFileSync } from 'node:fs';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../../../lambda/dev/fakes/fake-upstream.js';
import { startFakeOpenAI } from '../../../lambda/dev/fakes/openai-fake.js';
import { sha256Hex } from '../../../lambda/http/caller-auth.js';
import { type CapturedOutput, captureProcessOutput } from '../../helpers/capture-output.js';
import { writeTempConfig } from '../../helpers/cli-harness.js';
import { DYNALITE_ENV, type RunningDynalite, startDynalite } from '../../helpers/dynalite.js';
import { type FakeSsm, startFakeSsm } from '../../helpers/fake-ssm.js';
import { installLambdaStreamingRuntime, invokeStreaming } from '../../helpers/lambda-runtime.js';

const CALLER_KEY = 'sy-caller-key-for-503-tests-0123456789';
const CACHE_MS = 300;
/** Below the snapshot's longest lifetime (300 ms × 1.2), so the lifetime (360 ms) is the bound. */
const MAX_STALE_MS = 100;
/** After a failed read the snapshot waits 1 s (± 20 %) before the next one. */
const BACKOFF_MS = 1_200;

const fixture = JSON.parse(
  readFileSync(new URL('../../fixtures/apigw-rest-proxy-event.json', import.meta.url), 'utf8'),
);

function event(): APIGatewayProxyEvent {
  const e = structuredClone(fixture);
  e.body = JSON.stringify({ model: 'p', messages: [{ role: 'user', content: 'hi' }] });
  e.headers.Authorization = `Bearer ${CALLER_KEY}`;
  e.multiValueHeaders.Authorization = [`Bearer ${CALLER_KEY}`];
  return e;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const saved = { ...process.env };
let dynalite: RunningDynalite;
let ssm: FakeSsm;
let upstream: FakeUpstream;
let handler: unknown;
let output: CapturedOutput;

beforeAll(async () => {
  [dynalite, ssm, upstream] = await Promise.all([startDynalite(), startFakeSsm(), startFakeOpenAI()]);
  // Outside the prefix (read by GetParameters), so the provider key does not depend on the failing read.
  ssm.put('/sy503-keys/fake', 'sk-provider-key', { type: 'SecureString' });
  ssm.put('/sy503/caller-keys', JSON.stringify({ tests: sha256Hex(CALLER_KEY) }), { type: 'SecureString' });
  // SSM throttles from the container's first read on.
  ssm.fail('GetParametersByPath', { type: 'ThrottlingException', message: 'Rate exceeded' }, 1_000);
  Object.assign(process.env, DYNALITE_ENV, {
    AWS_ENDPOINT_URL_DYNAMODB: dynalite.endpoint,
    AWS_ENDPOINT_URL_SSM: ssm.url,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: 'http://127.0.0.1:9',
    SWITCHYARD_CONFIG: writeTempConfig({
      providers: { fake: { type: 'openai', baseURL: upstream.url, apiKeySecret: '/sy503-keys/fake' } },
      models: { a: { provider: 'fake', model: 'model-a' } },
      pipelines: { p: { chain: 'a' } },
      aws: { ssmPrefix: '/sy503', chainCacheMs: CACHE_MS, callerKeysMaxStaleMs: MAX_STALE_MS },
    }),
    SWITCHYARD_STORE: 'dynamodb',
    SWITCHYARD_TABLE: 'switchyard-breakers-503-test',
    SWITCHYARD_SSM_PREFIX: '/sy503',
  });
  output = captureProcessOutput();
  installLambdaStreamingRuntime();
  ({ handler } = await import('../../../lambda/handlers/api.js'));
});

afterAll(async () => {
  output.restore();
  process.env = saved;
  await Promise.all([dynalite.stop(), ssm.close(), upstream.close()]);
});

describe('API Lambda handler without a good caller-key set (fail closed, but say why)', () => {
  it('answers 503 with Retry-After in the OpenAI envelope, never 401, while no key set was ever read', async () => {
    const res = await invokeStreaming(handler, event());
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
    expect(output.text()).toContain('caller keys unavailable; request refused');
    expect(upstream.requests).toHaveLength(0);
  });

  it('serves the caller once SSM answers again, after the backoff', async () => {
    ssm.fail('GetParametersByPath', { type: 'ThrottlingException' }, 0);
    await sleep(BACKOFF_MS);
    const res = await invokeStreaming(handler, event());
    expect(res.statusCode).toBe(200);
  });

  it('answers 503 again once the last good set is older than its maximum stale age while SSM fails', async () => {
    ssm.fail('GetParametersByPath', { type: 'ThrottlingException' }, 1_000);
    await sleep(CACHE_MS * 1.2 + 100);
    const res = await invokeStreaming(handler, event());
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(output.text()).toContain('caller keys too old; refusing callers');
  });
});
