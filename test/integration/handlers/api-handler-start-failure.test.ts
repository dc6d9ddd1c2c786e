import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CapturedOutput, captureProcessOutput } from '../../helpers/capture-output.js';
import { writeTempConfig } from '../../helpers/cli-harness.js';
import { DYNALITE_ENV } from '../../helpers/dynalite.js';
import { installLambdaStreamingRuntime, invokeStreaming } from '../../helpers/lambda-runtime.js';

const fixture = JSON.parse(
  readFileSync(new URL('../../fixtures/apigw-rest-proxy-event.json', import.meta.url), 'utf8'),
);
const saved = { ...process.env };
let handler: unknown;
let output: CapturedOutput;

beforeAll(async () => {
  Object.assign(process.env, DYNALITE_ENV, {
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
  output = captureProcessOutput();
  installLambdaStreamingRuntime();
  ({ handler } = await import('../../../lambda/handlers/api.js'));
});

afterAll(() => {
  output.restore();
  process.env = saved;
});

describe('API Lambda handler when the gateway cannot start', () => {
  it('answers 503 in the OpenAI envelope and logs the cause without a stack trace for the caller', async () => {
    const event = structuredClone(fixture);
    event.body = JSON.stringify({ model: 'p', messages: [{ role: 'user', content: 'hi' }] });
    const res = await invokeStreaming(handler, event);
    expect(res.statusCode).toBe(503);
    expect(JSON.parse(res.body).error.code).toBe('service_unavailable');
    expect(res.body).not.toMatch(/\n\s+at /);
    expect(output.text()).toContain('gateway failed to start');
  }, 20_000);
});
