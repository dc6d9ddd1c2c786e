import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../../lambda/dev/fakes/fake-upstream.js';
import { startFakeOpenAI } from '../../lambda/dev/fakes/openai-fake.js';
import { writeTempConfig } from '../helpers/cli-harness.js';
import { DYNALITE_ENV, type RunningDynalite, startDynalite } from '../helpers/dynalite.js';
import { spawnServe } from '../helpers/serve-process.js';

const children: ChildProcess[] = [];
const outputs: (() => string)[] = [];
const fakes: FakeUpstream[] = [];
let dynalite: RunningDynalite | undefined;
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  outputs.splice(0);
  for (const fake of fakes.splice(0)) await fake.close();
  await dynalite?.stop();
});

/** `switchyard serve` in its own process on the shared dynalite table; resolves once it listens. */
async function startServe(config: string, endpoint: string) {
  const serve = spawnServe(['--config', config, '--port', '0'], {
    ...DYNALITE_ENV,
    SWITCHYARD_STORE: 'dynamodb',
    SWITCHYARD_TABLE: 'shared-bulkhead',
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
  });
  children.push(serve.proc);
  const url = await serve.url(20_000);
  outputs.push(serve.output);
  return async () => {
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'p', messages: [{ role: 'user', content: 'hi' }] }),
    });
    await response.arrayBuffer();
    return { status: response.status, route: response.headers.get('x-switchyard-route') ?? '' };
  };
}

describe('a shared bulkhead: two switchyard serve processes on one DynamoDB table', () => {
  it('50 concurrent requests against maxInFlight 5: the primary never has more than 5 in flight, the rest go to the fallback', async () => {
    dynalite = await startDynalite();
    const primary = await startFakeOpenAI();
    const fallback = await startFakeOpenAI();
    fakes.push(primary, fallback);
    // Each answer takes long enough for the requests of both gateways to overlap.
    primary.setDefault('*', { latencyMs: 400 });
    const config = writeTempConfig({
      providers: {
        one: { type: 'openai', baseURL: primary.url },
        two: { type: 'openai', baseURL: fallback.url },
      },
      models: { a: { provider: 'one', model: 'model-a' }, b: { provider: 'two', model: 'model-b' } },
      pipelines: { p: { chain: 'a,b', deadlineMs: 10_000 } },
      capacity: { shared: true, routes: { a: { maxInFlight: 5 } } },
    });
    const gateways = await Promise.all([
      startServe(config, dynalite.endpoint),
      startServe(config, dynalite.endpoint),
    ]);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => gateways[i % 2]?.() ?? Promise.reject()),
    );

    expect(results.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect(primary.inFlightPeak).toBeGreaterThan(0);
    // A store call that outlives the gateway's 1 s bound (a starved machine) degrades that take to
    // the process's own count, logged: then each of the two gateways keeps its own 5.
    const degraded = outputs.some((output) => output().includes('capacity store call failed'));
    expect(primary.inFlightPeak).toBeLessThanOrEqual(degraded ? 10 : 5);
    const skipped = results.filter((r) => r.route === '!a:full,b:200');
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped.length + results.filter((r) => r.route === 'a:200').length).toBe(50);
    expect(primary.requestsFor('model-a').length).toBe(50 - skipped.length);
  });
});
