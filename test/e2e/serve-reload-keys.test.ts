import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../../lambda/dev/fakes/fake-upstream.js';
import { startFakeOpenAI } from '../../lambda/dev/fakes/openai-fake.js';
import { sha256Hex } from '../../lambda/http/caller-auth.js';
import { writeTempConfig } from '../helpers/cli-harness.js';
import { waitFor } from '../helpers/gateway-harness.js';
import { spawnServe } from '../helpers/serve-process.js';

const OLD_KEY = 'sy-old-key-0123456789abcdef';
const NEW_KEY = 'sy-new-key-0123456789abcdef';

let child: ChildProcess | undefined;
let fake: FakeUpstream | undefined;
afterEach(async () => {
  child?.kill('SIGKILL');
  await fake?.close();
});

const configWith = (baseURL: string, auth: unknown) => ({
  providers: { fake: { type: 'openai', baseURL, apiKeyEnv: 'FAKE_KEY' } },
  models: { a: { provider: 'fake', model: 'model-a' } },
  pipelines: { p: { chain: 'a' } },
  ...(auth === undefined ? {} : { auth }),
});

describe('switchyard serve reloads caller keys on SIGHUP (real process)', () => {
  it('revokes and adds keys without a restart, and keeps the keys in force when a reload is bad', async () => {
    fake = await startFakeOpenAI();
    const url0 = fake.url;
    const path = writeTempConfig(configWith(url0, { keys: { old: sha256Hex(OLD_KEY) } }));
    const serve = spawnServe(['--config', path, '--port', '0'], { FAKE_KEY: 'sk-test-0123456789' });
    child = serve.proc;
    const base = await serve.url();
    const status = async (key: string) =>
      (await fetch(`${base}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status;
    const reload = async (marker: RegExp) => {
      const seen = (serve.output().match(new RegExp(marker, 'g')) ?? []).length;
      serve.proc.kill('SIGHUP');
      await waitFor(() => (serve.output().match(new RegExp(marker, 'g')) ?? []).length > seen, 10_000);
    };

    expect(await status(OLD_KEY)).toBe(200);
    expect(await status(NEW_KEY)).toBe(401);

    writeFileSync(path, JSON.stringify(configWith(url0, { keys: { new: sha256Hex(NEW_KEY) } })));
    await reload(/caller keys reloaded/);
    expect(await status(OLD_KEY)).toBe(401);
    expect(await status(NEW_KEY)).toBe(200);

    writeFileSync(path, '{"providers": ');
    await reload(/caller keys NOT reloaded/);
    expect(await status(NEW_KEY)).toBe(200);

    // Dropping the auth section is refused: a reload never opens the gateway.
    writeFileSync(path, JSON.stringify(configWith(url0, undefined)));
    await reload(/caller keys NOT reloaded/);
    expect(serve.output()).toContain('never turns caller authentication off');
    expect(await status('')).toBe(401);
    expect(await status(NEW_KEY)).toBe(200);

    // Emptying the key list revokes everyone.
    writeFileSync(path, JSON.stringify(configWith(url0, { keys: {} })));
    await reload(/caller keys reloaded/);
    expect(await status(NEW_KEY)).toBe(401);
    expect(serve.output()).not.toContain(NEW_KEY);
    expect(serve.output()).not.toContain(OLD_KEY);
  }, 60_000);
});
