import type { ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../../lambda/dev/fakes/fake-upstream.js';
import { startFakeOpenAI } from '../../lambda/dev/fakes/openai-fake.js';
import { runCliCaptured, writeTempConfig } from '../helpers/cli-harness.js';
import { HELLO, waitFor } from '../helpers/gateway-harness.js';
import { useOperatorAws } from '../helpers/operator-aws.js';
import { spawnServe } from '../helpers/serve-process.js';

const CACHE_MS = 200;
const aws = useOperatorAws({});
let child: ChildProcess | undefined;
let fake: FakeUpstream | undefined;
afterAll(async () => {
  child?.kill('SIGKILL');
  await fake?.close();
});

describe('switchyard serve --ssm (real process, fake SSM, fake upstream)', () => {
  it('routes by a timed override set with chain set --for, and turns back by itself at its end', async () => {
    fake = await startFakeOpenAI();
    const config = writeTempConfig({
      providers: { fake: { type: 'openai', baseURL: fake.url, apiKeyEnv: 'FAKE_KEY' } },
      models: { a: { provider: 'fake', model: 'model-a' }, b: { provider: 'fake', model: 'model-b' } },
      pipelines: { p: { chain: 'a' } },
      aws: { chainCacheMs: CACHE_MS },
    });
    const serve = spawnServe(['--config', config, '--port', '0', '--ssm'], {
      ...aws.env,
      FAKE_KEY: 'sk-fake-key-0123456789',
    });
    child = serve.proc;
    const url = await serve.url(20_000);
    // The start-up lines follow the URL.
    await waitFor(() => serve.output().includes('chain overrides:'), 5_000);
    expect(serve.output()).toContain(
      'chain overrides: SSM /switchyard/chains/ (each read at most every 0.2 s)',
    );
    const servedBy = async () => {
      const res = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'p', ...HELLO }),
      });
      expect(res.status).toBe(200);
      return res.headers.get('x-switchyard-model');
    };
    expect(await servedBy()).toBe('a');

    const set = await runCliCaptured(['chain', 'set', 'p', 'b', '--for', '5s', '--config', config], aws.env);
    expect(set.code).toBe(0);
    const until = Date.parse(/until (\S+Z)/.exec(set.stdout)?.[1] ?? '');
    let model: string | null = null;
    while (Date.now() < until - 500 && model !== 'b') model = await servedBy();
    expect(model).toBe('b');
    await new Promise((r) => setTimeout(r, Math.max(0, until - Date.now())));
    expect(await servedBy()).toBe('a');
  }, 60_000);
});
