import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../../../lambda/dev/fakes/fake-upstream.js';
import { startFakeOpenAI } from '../../../lambda/dev/fakes/openai-fake.js';
import { sha256Hex } from '../../../lambda/http/caller-auth.js';
import { type CapturedOutput, captureProcessOutput } from '../../helpers/capture-output.js';
import { writeTempConfig } from '../../helpers/cli-harness.js';
import { DYNALITE_ENV, type RunningDynalite, startDynalite } from '../../helpers/dynalite.js';
import { type FakeSsm, startFakeSsm } from '../../helpers/fake-ssm.js';
import { installLambdaStreamingRuntime, lambdaContext } from '../../helpers/lambda-runtime.js';

const CALLER_KEY = 'sy-caller-key-for-abort-tests-0123456789';
const fixture = JSON.parse(
  readFileSync(new URL('../../fixtures/apigw-rest-proxy-event.json', import.meta.url), 'utf8'),
);

function event(body: unknown): APIGatewayProxyEvent {
  const e = structuredClone(fixture);
  e.body = JSON.stringify(body);
  e.headers.Authorization = `Bearer ${CALLER_KEY}`;
  e.multiValueHeaders.Authorization = [`Bearer ${CALLER_KEY}`];
  return e;
}

type StreamingHandler = (event: unknown, stream: PassThrough, context: unknown) => Promise<void>;

let dynalite: RunningDynalite;
let ssm: FakeSsm;
let upstream: FakeUpstream;
let handler: StreamingHandler;
let output: CapturedOutput;
const saved = { ...process.env };

beforeAll(async () => {
  [dynalite, ssm, upstream] = await Promise.all([startDynalite(), startFakeSsm(), startFakeOpenAI()]);
  ssm.put('/abort/keys/fake', 'sk-provider-abort-0123456789abcdef', { type: 'SecureString' });
  ssm.put('/abort/caller-keys', JSON.stringify({ tests: sha256Hex(CALLER_KEY) }), { type: 'SecureString' });
  Object.assign(process.env, DYNALITE_ENV, {
    AWS_ENDPOINT_URL_DYNAMODB: dynalite.endpoint,
    AWS_ENDPOINT_URL_SSM: ssm.url,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: 'http://127.0.0.1:9',
    SWITCHYARD_CONFIG: writeTempConfig({
      providers: { fake: { type: 'openai', baseURL: upstream.url, apiKeySecret: '/abort/keys/fake' } },
      // Long enough that only the caller's disconnect can end the attempt within the test.
      models: { a: { provider: 'fake', model: 'model-a', timeoutMs: 15_000 } },
      pipelines: { p: { chain: 'a', deadlineMs: 15_000 } },
      aws: { ssmPrefix: '/abort', chainCacheMs: 300 },
    }),
    SWITCHYARD_STORE: 'dynamodb',
    SWITCHYARD_TABLE: 'switchyard-breakers-abort-test',
    SWITCHYARD_SSM_PREFIX: '/abort',
    POWERTOOLS_SERVICE_NAME: 'switchyard',
  });
  output = captureProcessOutput();
  installLambdaStreamingRuntime();
  ({ handler } = (await import('../../../lambda/handlers/api.js')) as unknown as {
    handler: StreamingHandler;
  });
});

afterAll(async () => {
  output.restore();
  process.env = saved;
  await Promise.all([dynalite.stop(), ssm.close(), upstream.close()]);
});

beforeEach(() => upstream.reset());

/** Resolves once `condition` holds (polled every 20 ms). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 20));
}

/** The reason of the last `ledger request` line logged. */
function lastRequestReason(): string | undefined {
  const lines = output
    .text()
    .split('\n')
    .filter((l) => l.includes('"ledger request"'));
  return lines.length ? JSON.parse(lines.at(-1) ?? '{}').reason : undefined;
}

describe('API Lambda handler: the caller goes away', () => {
  it.each([
    ['a plain answer still waiting on the upstream', false],
    ['a stream before its first byte', true],
  ])('aborts the upstream call of %s when the response stream closes', async (_name, stream) => {
    upstream.script('model-a', [{ hang: true }]);
    const responseStream = new PassThrough();
    const invocation = handler(
      event({ model: 'p', stream, messages: [{ role: 'user', content: 'hi' }] }),
      responseStream,
      lambdaContext(),
    );
    await until(() => upstream.requestsFor('model-a').length === 1);

    responseStream.destroy(); // what the runtime's stream does when API Gateway drops the connection
    await invocation; // ends without an error: nobody is left to answer

    await until(() => upstream.requestsFor('model-a')[0]?.aborted === true);
    expect(upstream.requestsFor('model-a')).toHaveLength(1);
    expect(lastRequestReason()).toBe('cancelled');
  });

  it('leaves a request whose stream stays open alone, and writes its answer', async () => {
    const responseStream = new PassThrough();
    const chunks: Buffer[] = [];
    responseStream.on('data', (c: Buffer) => chunks.push(c));
    await handler(
      event({ model: 'p', messages: [{ role: 'user', content: 'hi' }] }),
      responseStream,
      lambdaContext(),
    );
    expect(JSON.parse(Buffer.concat(chunks).toString('utf8')).choices[0].message.content).toBe(
      'Hello from model-a.',
    );
    expect(upstream.requestsFor('model-a')[0]?.aborted).toBe(false);
    expect(lastRequestReason()).toBe('success');
  });
});
