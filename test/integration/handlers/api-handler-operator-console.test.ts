/**
 * The operator console on AWS: through the API handler its endpoints write SSM
 * (`<prefix>/chains/<pipeline>`, fake SSM here), each version carrying the operator key's name and
 * the reason, and the container routes by the change once its parameter snapshot renews.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHandlerRig, bearer, restEvent, startApiHandler } from '../../helpers/api-handler-harness.js';
import { runCliCaptured } from '../../helpers/cli-harness.js';
import { invokeStreaming } from '../../helpers/lambda-runtime.js';
import { operatorAwsEnv } from '../../helpers/operator-aws.js';

const CALLER_KEY = 'sy-caller-key-for-console-tests-0123';
const CACHE_MS = 300;
const PARAMETER = '/switchyard/chains/p';

let api: ApiHandlerRig;
const call = (method: 'GET' | 'POST', path: string, body?: unknown) =>
  invokeStreaming(api.handler, restEvent({ method, path, body, headers: bearer(CALLER_KEY) }));

async function untilServedBy(model: string): Promise<void> {
  const start = Date.now();
  while (Date.now() - start < CACHE_MS * 10) {
    const res = await call('POST', '/v1/chat/completions', {
      model: 'p',
      messages: [{ role: 'user', content: 'hi' }],
    });
    if (res.headers['x-switchyard-model'] === model) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`still not served by ${model}`);
}

beforeAll(async () => {
  api = await startApiHandler(({ ssm, upstream }) => {
    ssm.put('/switchyard/keys/fake', 'sk-provider-console-tests', { type: 'SecureString' });
    return {
      config: {
        providers: { fake: { type: 'openai', baseURL: upstream.url, apiKeySecret: '/switchyard/keys/fake' } },
        models: { a: { provider: 'fake', model: 'model-a' }, b: { provider: 'fake', model: 'model-b' } },
        pipelines: { p: { chain: 'a' } },
        aws: { ssmPrefix: '/switchyard', chainCacheMs: CACHE_MS },
        auth: { keys: {}, operatorKeys: ['tests'] },
        statusPage: { enabled: true, console: true },
      },
      table: 'switchyard-breakers-console-test',
      callerKey: CALLER_KEY,
    };
  });
});
afterAll(() => api.stop());

describe('the operator console through the API handler (fake SSM)', () => {
  it('writes SSM with who and why, and the container routes by it within the cache time', async () => {
    const res = await call('POST', '/v1/operator/pipelines/p/set', { chain: 'b', reason: 'a is failing' });
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({
      done: 'p routes on b',
      applies: `running gateways apply it within ${CACHE_MS / 1000} s`,
    });
    expect(api.ssm.value(PARAMETER)).toBe('b');
    expect(api.ssm.versions(PARAMETER).at(-1)?.description).toBe(
      'set b by tests (operator console): a is failing',
    );
    await untilServedBy('b');

    const explained = JSON.parse((await call('GET', '/v1/operator/pipelines/p')).body);
    expect(explained.history).toEqual([
      expect.objectContaining({ version: 1, who: 'tests', why: 'a is failing', what: 'set b', value: 'b' }),
    ]);
    // `switchyard chain history` reads the same versions and shows who and why of a console change.
    const cli = await runCliCaptured(
      ['chain', 'history', 'p', '--config', api.configPath],
      operatorAwsEnv({ ssm: api.ssm.url }),
    );
    expect(cli.stdout).toMatch(/^VERSION +MODIFIED +BY +CHAIN +WHY$/m);
    expect(cli.stdout).toMatch(/^1 +\S+ +tests \(console\) +b +a is failing$/m);
  });

  it('clears the override: SSM deletes the parameter and the container returns to the config chain', async () => {
    const res = await call('POST', '/v1/operator/pipelines/p/clear', { reason: 'a is back' });
    expect(res.statusCode).toBe(200);
    expect(api.ssm.value(PARAMETER)).toBeUndefined();
    await untilServedBy('a');
  });
});
