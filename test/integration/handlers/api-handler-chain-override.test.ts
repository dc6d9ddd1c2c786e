import { readFileSync } from 'node:fs';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../../../lambda/dev/fakes/fake-upstream.js';
import { startFakeOpenAI } from '../../../lambda/dev/fakes/openai-fake.js';
import { sha256Hex } from '../../../lambda/http/caller-auth.js';
import { type CapturedOutput, captureProcessOutput } from '../../helpers/capture-output.js';
import { runCliCaptured, writeTempConfig } from '../../helpers/cli-harness.js';
import { DYNALITE_ENV, type RunningDynalite, startDynalite } from '../../helpers/dynalite.js';
import { type FakeSsm, startFakeSsm } from '../../helpers/fake-ssm.js';
import { installLambdaStreamingRuntime, invokeStreaming } from '../../helpers/lambda-runtime.js';

const CALLER_KEY = 'sy-caller-key-for-override-tests-0123';
const CACHE_MS = 300;
/** Generous upper bound for a container to notice an SSM change (cache lifetime plus any jitter). */
const NOTICE_WITHIN_MS = CACHE_MS * 10;
const PARAMETER = '/switchyard/chains/p';

const fixture = JSON.parse(
  readFileSync(new URL('../../fixtures/apigw-rest-proxy-event.json', import.meta.url), 'utf8'),
);

/** The real API Gateway (REST, payload 1.0) fixture, re-aimed at `method path`. */
function event(method: 'GET' | 'POST', path: string, body?: unknown): APIGatewayProxyEvent {
  const e = structuredClone(fixture);
  e.httpMethod = method;
  e.path = path;
  e.pathParameters = { proxy: path.slice(1) };
  e.requestContext.httpMethod = method;
  e.requestContext.path = `/prod${path}`;
  e.body = body === undefined ? null : JSON.stringify(body);
  e.headers.Authorization = `Bearer ${CALLER_KEY}`;
  e.multiValueHeaders.Authorization = [`Bearer ${CALLER_KEY}`];
  return e;
}

let dynalite: RunningDynalite;
let ssm: FakeSsm;
let upstream: FakeUpstream;
let handler: unknown;
let output: CapturedOutput;
let config: string;
let operatorEnv: NodeJS.ProcessEnv;

const modelServing = async () => {
  const res = await invokeStreaming(
    handler,
    event('POST', '/v1/chat/completions', { model: 'p', messages: [{ role: 'user', content: 'hi' }] }),
  );
  expect(res.statusCode).toBe(200);
  return res.headers['x-switchyard-model'];
};

const pipelineP = async () => {
  const res = await invokeStreaming(handler, event('GET', '/v1/pipelines'));
  expect(res.statusCode).toBe(200);
  const p = JSON.parse(res.body).data.find((d: { name: string }) => d.name === 'p');
  return { source: p.source, chain: p.chain };
};

/** Asks until the container routes by `model`; fails the test after NOTICE_WITHIN_MS. */
async function untilServedBy(model: string): Promise<void> {
  const start = Date.now();
  while (Date.now() - start < NOTICE_WITHIN_MS) {
    if ((await modelServing()) === model) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`still not served by ${model} after ${NOTICE_WITHIN_MS} ms`);
}

/** The operator's command, run against the same fake SSM as the deployment. */
const operator = (...args: string[]) => runCliCaptured(['chain', ...args, '--config', config], operatorEnv);

beforeAll(async () => {
  [dynalite, ssm, upstream] = await Promise.all([startDynalite(), startFakeSsm(), startFakeOpenAI()]);
  config = writeTempConfig({
    providers: { fake: { type: 'openai', baseURL: upstream.url, apiKeySecret: '/switchyard/keys/fake' } },
    models: {
      a: { provider: 'fake', model: 'model-a' },
      b: { provider: 'fake', model: 'model-b' },
    },
    pipelines: { p: { chain: 'a' } },
    aws: { ssmPrefix: '/switchyard', chainCacheMs: CACHE_MS },
    auth: { keys: {}, operatorKeys: ['tests'] },
  });
  ssm.put('/switchyard/keys/fake', 'sk-provider-override-tests', { type: 'SecureString' });
  ssm.put('/switchyard/caller-keys', JSON.stringify({ tests: sha256Hex(CALLER_KEY) }), {
    type: 'SecureString',
  });
  operatorEnv = {
    AWS_ENDPOINT_URL_SSM: ssm.url,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'AKIDOPERATOR',
    AWS_SECRET_ACCESS_KEY: 'fake',
  };
  Object.assign(process.env, DYNALITE_ENV, {
    AWS_ENDPOINT_URL_DYNAMODB: dynalite.endpoint,
    AWS_ENDPOINT_URL_SSM: ssm.url,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: 'http://127.0.0.1:9',
    SWITCHYARD_CONFIG: config,
    SWITCHYARD_STORE: 'dynamodb',
    SWITCHYARD_TABLE: 'switchyard-breakers-override-test',
    SWITCHYARD_SSM_PREFIX: '/switchyard',
    POWERTOOLS_SERVICE_NAME: 'switchyard',
  });
  output = captureProcessOutput();
  installLambdaStreamingRuntime();
  ({ handler } = await import('../../../lambda/handlers/api.js'));
});

afterAll(async () => {
  output.restore();
  await Promise.all([dynalite.stop(), ssm.close(), upstream.close()]);
});

describe('an operator override through the API handler (fake SSM, dynalite, fake upstream)', () => {
  it('routes by the config chain, and says so, while no override exists', async () => {
    expect(ssm.value(PARAMETER)).toBeUndefined();
    expect(await modelServing()).toBe('a');
    expect(await pipelineP()).toEqual({ source: 'config', chain: 'a' });
  });

  it('routes by an override set with switchyard chain set, and reports its source as ssm', async () => {
    const set = await operator('set', 'p', 'b');
    expect(set.code).toBe(0);
    expect(ssm.value(PARAMETER)).toBe('b');
    await untilServedBy('b');
    expect(await pipelineP()).toEqual({ source: 'ssm', chain: 'b' });
    // Not a one-off: the container keeps routing by the override.
    expect(await modelServing()).toBe('b');
  });

  it('returns to the config chain after switchyard chain clear, once the cache lifetime has passed', async () => {
    const clear = await operator('clear', 'p');
    expect(clear.code).toBe(0);
    expect(ssm.value(PARAMETER)).toBeUndefined();
    await untilServedBy('a');
    expect(await pipelineP()).toEqual({ source: 'config', chain: 'a' });
    expect(await modelServing()).toBe('a');
  });
});
