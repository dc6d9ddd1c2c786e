/**
 * `switchyard serve --console`: the operator console's overrides live in a local SQLite file,
 * which the gateway reads as it would SSM (env > override > config), across restarts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { serveCommand } from '../../lambda/cli/serve-command.js';
import { sha256Hex } from '../../lambda/http/caller-auth.js';
import { writeTempConfig } from '../helpers/cli-harness.js';
import { bearer } from '../helpers/gateway-harness.js';
import { ABC_CONFIG } from '../helpers/test-config.js';

const OPS_KEY = 'sk-ops-serve-console-1';
const WITH_AUTH = { ...ABC_CONFIG, auth: { keys: { ops: sha256Hex(OPS_KEY) }, operatorKeys: ['ops'] } };
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Runs `serve` with `args`, gives `work` its URL while it listens, and returns what it printed. */
async function serveWith(
  config: unknown,
  args: string[],
  work: (url: string) => Promise<void>,
  env: NodeJS.ProcessEnv = {},
) {
  let stdout = '';
  const code = await serveCommand(
    ['--config', writeTempConfig(config), '--port', '0', '--jobs', 'memory', ...args],
    { stdout: (t) => (stdout += t), stderr: () => {}, env, cwd: process.cwd() },
    async () => {
      await work(/listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1] ?? '');
      return 'SIGTERM';
    },
  );
  return { code, stdout };
}

const pipelines = async (url: string) =>
  (
    (await (await fetch(`${url}/v1/pipelines`, { headers: bearer(OPS_KEY) })).json()) as {
      data: { name: string; source: string; chain: string }[];
    }
  ).data.find((p) => p.name === 'p');

describe('serve --console', () => {
  it('keeps an override set in the console in its local file and routes by it, also after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-serve-console-'));
    dirs.push(dir);
    const db = join(dir, 'overrides.db');
    const first = await serveWith(WITH_AUTH, ['--console', '--overrides-db', db], async (url) => {
      const res = await fetch(`${url}/v1/operator/pipelines/p/set`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(OPS_KEY) },
        body: JSON.stringify({ chain: 'c', reason: 'a and b are down' }),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        applies: 'in force now',
        explanation: { source: 'ssm', chain: 'c' },
      });
      expect(await pipelines(url)).toMatchObject({ source: 'ssm', chain: 'c' });
    });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`operator console: on the status page; overrides in local store ${db}`);

    await serveWith(WITH_AUTH, ['--console', '--overrides-db', db], async (url) => {
      expect(await pipelines(url)).toMatchObject({ source: 'ssm', chain: 'c' });
      const explained = await (
        await fetch(`${url}/v1/operator/pipelines/p`, { headers: bearer(OPS_KEY) })
      ).json();
      expect(explained.history).toEqual([
        expect.objectContaining({ version: 1, who: 'ops', why: 'a and b are down', what: 'set c' }),
      ]);
    });
    // MODEL_<P> still wins over the console's override (SPEC §3: env, override, config).
    await serveWith(
      WITH_AUTH,
      ['--console', '--overrides-db', db],
      async (url) => {
        expect(await pipelines(url)).toMatchObject({ source: 'env', chain: 'a' });
      },
      { MODEL_P: 'a' },
    );
  });

  it('says at start that the console refuses every change when no operator key is configured', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-serve-console-'));
    dirs.push(dir);
    const run = await serveWith(
      ABC_CONFIG,
      ['--console', '--overrides-db', join(dir, 'o.db')],
      async () => {},
    );
    expect(run.stdout).toContain(
      'operator console: on, but it refuses every change: no operator key is configured',
    );
    expect(run.stdout).toMatch(/^status page: http:\/\/127\.0\.0\.1:\d+\/status$/m);
  });

  it('refuses --overrides-db without --console', async () => {
    await expect(serveWith(ABC_CONFIG, ['--overrides-db', 'x.db'], async () => {})).rejects.toThrow(
      '--overrides-db belongs to the operator console: add --console',
    );
  });
});
