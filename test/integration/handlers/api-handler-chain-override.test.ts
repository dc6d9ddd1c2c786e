import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHandlerRig, bearer, restEvent, startApiHandler } from '../../helpers/api-handler-harness.js';
import { runCliCaptured } from '../../helpers/cli-harness.js';
import { invokeStreaming } from '../../helpers/lambda-runtime.js';
import { operatorAwsEnv } from '../../helpers/operator-aws.js';

const CALLER_KEY = 'sy-caller-key-for-override-tests-0123';
const CACHE_MS = 300;
/** Generous upper bound for a container to notice an SSM change (cache lifetime plus any jitter). */
const NOTICE_WITHIN_MS = CACHE_MS * 10;
const PARAMETER = '/switchyard/chains/p';

const event = (method: 'GET' | 'POST', path: string, body?: unknown) =>
  restEvent({ method, path, body, headers: bearer(CALLER_KEY) });

let api: ApiHandlerRig;

const modelServing = async () => {
  const res = await invokeStreaming(
    api.handler,
    event('POST', '/v1/chat/completions', { model: 'p', messages: [{ role: 'user', content: 'hi' }] }),
  );
  expect(res.statusCode).toBe(200);
  return res.headers['x-switchyard-model'];
};

const pipelineP = async () => {
  const res = await invokeStreaming(api.handler, event('GET', '/v1/pipelines'));
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
const operator = (...args: string[]) =>
  runCliCaptured(['chain', ...args, '--config', api.configPath], operatorAwsEnv({ ssm: api.ssm.url }));

beforeAll(async () => {
  api = await startApiHandler(({ ssm, upstream }) => {
    ssm.put('/switchyard/keys/fake', 'sk-provider-override-tests', { type: 'SecureString' });
    return {
      config: {
        providers: { fake: { type: 'openai', baseURL: upstream.url, apiKeySecret: '/switchyard/keys/fake' } },
        models: {
          a: { provider: 'fake', model: 'model-a' },
          b: { provider: 'fake', model: 'model-b' },
        },
        pipelines: { p: { chain: 'a' } },
        aws: { ssmPrefix: '/switchyard', chainCacheMs: CACHE_MS },
        auth: { keys: {}, operatorKeys: ['tests'] },
      },
      table: 'switchyard-breakers-override-test',
      callerKey: CALLER_KEY,
    };
  });
});

afterAll(() => api.stop());

describe('an operator override through the API handler (fake SSM, dynalite, fake upstream)', () => {
  it('routes by the config chain, and says so, while no override exists', async () => {
    expect(api.ssm.value(PARAMETER)).toBeUndefined();
    expect(await modelServing()).toBe('a');
    expect(await pipelineP()).toEqual({ source: 'config', chain: 'a' });
  });

  it('routes by an override set with switchyard chain set, and reports its source as ssm', async () => {
    const set = await operator('set', 'p', 'b');
    expect(set.code).toBe(0);
    expect(api.ssm.value(PARAMETER)).toBe('b');
    await untilServedBy('b');
    expect(await pipelineP()).toEqual({ source: 'ssm', chain: 'b' });
    // Not a one-off: the container keeps routing by the override.
    expect(await modelServing()).toBe('b');
  });

  it('returns to the config chain after switchyard chain clear, once the cache lifetime has passed', async () => {
    const clear = await operator('clear', 'p');
    expect(clear.code).toBe(0);
    expect(api.ssm.value(PARAMETER)).toBeUndefined();
    await untilServedBy('a');
    expect(await pipelineP()).toEqual({ source: 'config', chain: 'a' });
    expect(await modelServing()).toBe('a');
  });

  it('routes by a timed override set with --for, and returns to the config chain by itself at its end', async () => {
    const set = await operator('set', 'p', 'b', '--for', '4s');
    expect(set.code).toBe(0);
    await untilServedBy('b');
    const res = await invokeStreaming(api.handler, event('GET', '/v1/pipelines'));
    const shown = JSON.parse(res.body).data.find((d: { name: string }) => d.name === 'p');
    expect(shown).toMatchObject({ source: 'ssm', chain: 'b', pinned: false });
    const until = Date.parse(shown.until);
    // Nobody acts: the parameter still holds the timed override when the container turns back.
    await new Promise((r) => setTimeout(r, Math.max(0, until - Date.now())));
    expect(await modelServing()).toBe('a');
    expect(await pipelineP()).toEqual({ source: 'config', chain: 'a' });
    expect(api.ssm.value(PARAMETER)).toContain('"timed"');
    await operator('clear', 'p');
  });
});
