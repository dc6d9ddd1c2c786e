import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../../lambda/dev/fakes/fake-upstream.js';
import { startFakeOpenAI } from '../../lambda/dev/fakes/openai-fake.js';
import { writeTempConfig } from '../helpers/cli-harness.js';
import { DYNALITE_ENV, type RunningDynalite, startDynalite } from '../helpers/dynalite.js';
import { waitFor } from '../helpers/gateway-harness.js';
import { spawnServe } from '../helpers/serve-process.js';

const children: ChildProcess[] = [];
let fake: FakeUpstream | undefined;
let dynalite: RunningDynalite | undefined;
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await fake?.close();
  await dynalite?.stop();
});

/** `switchyard serve` in its own process on a shared dynalite table; resolves once it listens. */
async function startServe(config: string, endpoint: string) {
  const serve = spawnServe(['--config', config, '--port', '0'], {
    ...DYNALITE_ENV,
    SWITCHYARD_STORE: 'dynamodb',
    SWITCHYARD_TABLE: 'shared-breakers',
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
  });
  children.push(serve.proc);
  const url = await serve.url(20_000);
  return {
    output: serve.output,
    chat: (pipeline: string) =>
      fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: pipeline, messages: [{ role: 'user', content: 'hi' }] }),
      }),
    breakers: async (pipeline: string) => {
      const response = await fetch(`${url}/v1/breakers?pipeline=${pipeline}`);
      return ((await response.json()) as { data: { model: string; state: string; openReason: string }[] })
        .data;
    },
  };
}

/** `coolMs: 1`: account-route cooling shorter than the gap between requests, to watch the breaker rule alone. */
const configFor = (upstream: FakeUpstream, rateLimit: { coolMs: number } = { coolMs: 1 }) =>
  writeTempConfig({
    providers: { fake: { type: 'openai', baseURL: upstream.url } },
    models: { a: { provider: 'fake', model: 'model-a' }, b: { provider: 'fake', model: 'model-b' } },
    pipelines: { p: { chain: 'a,b' }, q: { chain: 'a,b' } },
    rateLimit,
  });

describe('shared breakers: two switchyard serve processes on one DynamoDB table', () => {
  it('two 429s through the first open the breaker; the next request through the second starts on tier 2', async () => {
    // Tables stay CREATING for a while, as with `npx dynalite`; both gateways race to create it.
    dynalite = await startDynalite({ createTableMs: 300 });
    fake = await startFakeOpenAI();
    const config = configFor(fake);
    const [first, second] = await Promise.all([
      startServe(config, dynalite.endpoint),
      startServe(config, dynalite.endpoint),
    ]);
    expect(first.output() + second.output()).toContain("breakers: dynamodb table 'shared-breakers' at");

    fake.script('model-a', [{ status: 429 }, { status: 429 }]);
    for (let i = 0; i < 2; i++) {
      const response = await first.chat('p');
      expect(response.status).toBe(200);
      expect(response.headers.get('x-switchyard-route')).toBe('a:429,b:200');
    }
    await waitFor(() => first.output().includes('breaker opened'));

    const response = await second.chat('p');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-switchyard-route')).toBe('b:200');
    expect(response.headers.get('x-switchyard-attempts')).toBe('1');
    expect(response.headers.get('x-switchyard-model')).toBe('b');
    expect(fake.requestsFor('model-a')).toHaveLength(2);
    expect(fake.requestsFor('model-b')).toHaveLength(3);

    expect(await second.breakers('p')).toEqual([
      expect.objectContaining({ model: 'a', state: 'open', openReason: 'consecutive_429' }),
      expect.objectContaining({ model: 'b', state: 'closed' }),
    ]);
    // Only the process whose conditional write opened the breaker reports it.
    expect(second.output()).not.toContain('breaker opened');
  }, 60_000);

  it('a 429 through the first process cools the account route for another pipeline in the second', async () => {
    dynalite = await startDynalite();
    fake = await startFakeOpenAI();
    const config = configFor(fake, { coolMs: 5_000 });
    const [first, second] = await Promise.all([
      startServe(config, dynalite.endpoint),
      startServe(config, dynalite.endpoint),
    ]);
    fake.script('model-a', [{ status: 429, retryAfter: 30 }]);
    expect((await first.chat('p')).headers.get('x-switchyard-route')).toBe('a:429,b:200');
    const response = await second.chat('q');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-switchyard-route')).toBe('!a:cooling,b:200');
    expect(fake.requestsFor('model-a')).toHaveLength(1);
    expect(await second.breakers('q')).toEqual([
      expect.objectContaining({ model: 'a', state: 'closed', routeCooledBy: 'p' }),
      expect.objectContaining({ model: 'b', state: 'closed', routeCoolingUntil: null }),
    ]);
  }, 60_000);

  it('keeps answering when DynamoDB goes away mid-run, and logs the store failures', async () => {
    dynalite = await startDynalite();
    fake = await startFakeOpenAI();
    const serve = await startServe(configFor(fake), dynalite.endpoint);
    expect((await serve.chat('p')).status).toBe(200);
    expect(serve.output()).not.toContain('breaker store failed');

    await dynalite.stop();
    fake.script('model-a', [{ status: 429 }, { status: 429 }]);
    const routes: (string | null)[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await serve.chat('p');
      expect(response.status).toBe(200);
      routes.push(response.headers.get('x-switchyard-route'));
    }
    // The breaker still opens, on what this process knows.
    expect(routes).toEqual(['a:429,b:200', 'a:429,b:200', 'b:200']);
    await waitFor(() => serve.output().includes('breaker store failed'));
    expect(serve.output()).toMatch(
      /"message":"breaker store failed[^\n]*"operation":"read"[^\n]*ECONNREFUSED/,
    );
  }, 60_000);
});
