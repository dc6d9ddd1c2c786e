import { describe, expect, it } from 'vitest';
import { serveCommand } from '../../lambda/cli/serve-command.js';
import { writeTempConfig } from '../helpers/cli-harness.js';
import { ABC_CONFIG } from '../helpers/test-config.js';

/** Runs `serve` with `args`; while it listens, fetches each path of `paths` and records status and body. */
async function serveAndFetch(args: string[], paths: string[]) {
  let stdout = '';
  const statuses: Record<string, number> = {};
  const bodies: Record<string, string> = {};
  const code = await serveCommand(
    ['--config', writeTempConfig(ABC_CONFIG), '--port', '0', ...args],
    { stdout: (t) => (stdout += t), stderr: () => {}, env: {}, cwd: process.cwd() },
    async () => {
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
      for (const path of paths) {
        const res = await fetch(`${url}${path}`);
        statuses[path] = res.status;
        bodies[path] = await res.text();
      }
      return 'SIGTERM';
    },
  );
  return { code, stdout, statuses, bodies };
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

  it('answers each disabled endpoint 404 in the OpenAI envelope, naming the flag and the setting', async () => {
    const run = await serveAndFetch([], ['/metrics', '/status', '/v1/status']);
    const envelope = (message: string) => ({
      error: { message, type: 'invalid_request_error', code: 'not_found', param: null },
    });
    const statusOff =
      'the status page is not enabled: start the gateway with `switchyard serve --status` or set statusPage.enabled: true in the config';
    expect(JSON.parse(run.bodies['/metrics'] ?? '')).toEqual(
      envelope(
        '/metrics is not enabled: start the gateway with `switchyard serve --metrics` or set metrics.enabled: true in the config',
      ),
    );
    expect(JSON.parse(run.bodies['/status'] ?? '')).toEqual(envelope(statusOff));
    expect(JSON.parse(run.bodies['/v1/status'] ?? '')).toEqual(envelope(statusOff));
  });

  it('still answers an unknown path with the plain no-route 404', async () => {
    const run = await serveAndFetch([], ['/statusx']);
    expect(run.statuses['/statusx']).toBe(404);
    expect(JSON.parse(run.bodies['/statusx'] ?? '').error.message).toBe('no route for GET /statusx');
  });
});
