import { describe, expect, it } from 'vitest';
import { serveCommand } from '../../lambda/cli/serve-command.js';
import { writeTempConfig } from '../helpers/cli-harness.js';
import { ABC_CONFIG } from '../helpers/test-config.js';

/** Runs `serve` with `args`; while it listens, fetches each path of `paths` and records the status. */
async function serveAndFetch(args: string[], paths: string[]) {
  let stdout = '';
  const statuses: Record<string, number> = {};
  const code = await serveCommand(
    ['--config', writeTempConfig(ABC_CONFIG), '--port', '0', ...args],
    { stdout: (t) => (stdout += t), stderr: () => {}, env: {}, cwd: process.cwd() },
    async () => {
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
      for (const path of paths) statuses[path] = (await fetch(`${url}${path}`)).status;
      return 'SIGTERM';
    },
  );
  return { code, stdout, statuses };
}

describe('serve --metrics --status', () => {
  it('turns on /metrics and the status page and prints their URLs', async () => {
    const run = await serveAndFetch(['--metrics', '--status'], ['/metrics', '/status', '/v1/status']);
    expect(run.code).toBe(0);
    expect(run.statuses).toEqual({ '/metrics': 200, '/status': 200, '/v1/status': 200 });
    expect(run.stdout).toMatch(/^status page: http:\/\/127\.0\.0\.1:\d+\/status$/m);
    expect(run.stdout).toMatch(/^metrics: http:\/\/127\.0\.0\.1:\d+\/metrics$/m);
  });

  it('serves neither without the flags when the config leaves them off', async () => {
    const run = await serveAndFetch([], ['/metrics', '/status', '/v1/status']);
    expect(run.statuses).toEqual({ '/metrics': 404, '/status': 404, '/v1/status': 404 });
    expect(run.stdout).not.toContain('status page:');
  });
});
