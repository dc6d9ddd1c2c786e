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

const PROVIDER_KEY = 'sk-provider-NeverLogThis-0123456789abcdef';
const CALLER_KEY = 'sy-caller-key-for-tests-0123456789';
const PROMPT = 'confidential: the launch date is the 14th';
const CACHE_MS = 300;

const fixture = JSON.parse(
  readFileSync(new URL('../../fixtures/apigw-rest-proxy-event.json', import.meta.url), 'utf8'),
);

/** The real API Gateway (REST, payload 1.0) fixture with our body and headers. */
function event(
  body: unknown,
  headers: Record<string, string> = { Authorization: `Bearer ${CALLER_KEY}` },
): APIGatewayProxyEvent {
  const e = structuredClone(fixture);
  e.body = JSON.stringify(body);
  for (const [name, value] of Object.entries(headers)) {
    e.headers[name] = value;
    e.multiValueHeaders[name] = [value];
  }
  return e;
}

const chat = (model = 'p') => ({ model, messages: [{ role: 'user', content: PROMPT }] });

let dynalite: RunningDynalite;
let ssm: FakeSsm;
let upstream: FakeUpstream;
let handler: unknown;
let output: CapturedOutput;

beforeAll(async () => {
  [dynalite, ssm, upstream] = await Promise.all([startDynalite(), startFakeSsm(), startFakeOpenAI()]);
  const config = writeTempConfig({
    providers: { fake: { type: 'openai', baseURL: upstream.url, apiKeySecret: '/switchyard/keys/fake' } },
    models: {
      a: { provider: 'fake', model: 'model-a' },
      b: { provider: 'fake', model: 'model-b' },
      c: { provider: 'fake', model: 'model-c' },
    },
    pipelines: { p: { chain: 'a' } },
    aws: { ssmPrefix: '/switchyard', chainCacheMs: CACHE_MS },
  });
  ssm.put('/switchyard/keys/fake', PROVIDER_KEY, { type: 'SecureString' });
  ssm.put('/switchyard/caller-keys', JSON.stringify({ tests: sha256Hex(CALLER_KEY) }), {
    type: 'SecureString',
  });
  ssm.put('/switchyard/chains/p', 'b');
  Object.assign(process.env, DYNALITE_ENV, {
    AWS_ENDPOINT_URL_DYNAMODB: dynalite.endpoint,
    AWS_ENDPOINT_URL_SSM: ssm.url,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: 'http://127.0.0.1:9',
    SWITCHYARD_CONFIG: config,
    SWITCHYARD_STORE: 'dynamodb',
    SWITCHYARD_TABLE: 'switchyard-breakers-handler-test',
    SWITCHYARD_SSM_PREFIX: '/switchyard',
    POWERTOOLS_SERVICE_NAME: 'switchyard',
  });
  // Every line the handler logs (Powertools logger, EMF metrics) goes through these.
  output = captureProcessOutput();
  installLambdaStreamingRuntime();
  ({ handler } = await import('../../../lambda/handlers/api.js'));
});

afterAll(async () => {
  output.restore();
  await Promise.all([dynalite.stop(), ssm.close(), upstream.close()]);
});

describe('API Lambda handler (API Gateway REST events, dynalite, fake SSM, fake upstream)', () => {
  it('routes a request by the SSM chain', async () => {
    const res = await invokeStreaming(handler, event(chat()));
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-switchyard-model']).toBe('b');
    expect(JSON.parse(res.body).choices[0].message.content).toBe('Hello from model-b.');
  });

  it('routes by the new chain once the cache lifetime has passed after an edit (hot reroute)', async () => {
    ssm.put('/switchyard/chains/p', 'c,a');
    await new Promise((r) => setTimeout(r, CACHE_MS + 100));
    const res = await invokeStreaming(handler, event(chat()));
    expect(res.headers['x-switchyard-model']).toBe('c');
  });

  it('skips an SSM chain that resolves to nothing in favour of the config chain', async () => {
    ssm.put('/switchyard/chains/p', 'nosuchmodel');
    await new Promise((r) => setTimeout(r, CACHE_MS + 100));
    const res = await invokeStreaming(handler, event(chat()));
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-switchyard-model']).toBe('a');
    expect(output.text()).toContain('chain resolves to no model; source skipped');
  });

  it.each([
    ['a missing caller key', {}],
    ['a wrong caller key', { Authorization: 'Bearer sy-not-a-key' }],
  ])('answers 401 in the OpenAI envelope for %s', async (_name, headers) => {
    const res = await invokeStreaming(handler, event(chat(), headers));
    expect(res.statusCode).toBe(401);
    expect(JSON.parse(res.body).error.code).toBe('invalid_api_key');
  });

  it('streams server-sent events through the same handler', async () => {
    const res = await invokeStreaming(handler, event({ ...chat(), stream: true }));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/event-stream');
    expect(res.body).toContain('data: [DONE]');
  });

  it('keeps the provider key, the caller key and the prompt out of every log line', async () => {
    const logs = output.text();
    expect(logs).toContain('"type":"request"');
    expect(logs).toContain('"_aws"'); // EMF metrics
    expect(logs).not.toContain(PROVIDER_KEY);
    expect(logs).not.toContain(CALLER_KEY);
    expect(logs).not.toContain('launch date');
    expect(upstream.requests.length).toBeGreaterThan(0);
  });

  it('keeps routing by the last SSM chain while SSM fails, instead of reverting to the config', async () => {
    ssm.put('/switchyard/chains/p', 'b');
    await new Promise((r) => setTimeout(r, CACHE_MS + 100));
    expect((await invokeStreaming(handler, event(chat()))).headers['x-switchyard-model']).toBe('b');
    ssm.fail(
      'GetParametersByPath',
      { type: 'ThrottlingException', status: 400, message: 'Rate exceeded' },
      10,
    );
    await new Promise((r) => setTimeout(r, CACHE_MS + 100));
    const res = await invokeStreaming(handler, event(chat()));
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-switchyard-model']).toBe('b');
    expect(output.text()).toContain('SSM parameters unreadable; serving the last good snapshot');
  });
});
