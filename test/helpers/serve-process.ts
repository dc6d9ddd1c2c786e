import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './gateway-harness.js';

const LISTENING = /listening on (http:\/\/127\.0\.0\.1:\d+)/;

/** A `switchyard serve` process of a test, its stdout and stderr gathered in one string. */
export interface ServeProcess {
  proc: ChildProcess;
  /** Everything it printed so far, stdout and stderr interleaved as they came. */
  output(): string;
  /** Its exit code once it has exited. */
  exited: Promise<number | null>;
  /** The URL it prints once it listens (waits up to `withinMs` for that line). */
  url(withinMs?: number): Promise<string>;
}

/** A fresh path for a jobs database in a new temporary folder. */
export function tempJobsDb(): string {
  return join(mkdtempSync(join(tmpdir(), 'switchyard-jobs-')), 'jobs.db');
}

/**
 * Starts `switchyard serve <args>` (the real CLI, as a user runs it) with the test's environment
 * plus `env`; the caller stops it (`proc.kill`). Unless `env` names one, each process gets its own
 * jobs database in a temporary folder, so that tests never share `.switchyard/jobs.db` (two
 * processes on one file share their jobs, as workers on one queue do).
 */
export function spawnServe(args: string[], env: NodeJS.ProcessEnv = {}): ServeProcess {
  return spawnCli('serve', args, env);
}

/** Starts `switchyard <command> <args>` the way {@link spawnServe} starts `serve` (e.g. `start`, which `npm start` runs). */
export function spawnCli(command: string, args: string[], env: NodeJS.ProcessEnv = {}): ServeProcess {
  const proc = spawn(process.execPath, ['bin/switchyard.js', command, ...args], {
    env: {
      ...process.env,
      SWITCHYARD_JOBS_DB: tempJobsDb(),
      ...env,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const gather = (data: Buffer) => {
    out += data;
  };
  proc.stdout?.on('data', gather);
  proc.stderr?.on('data', gather);
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return {
    proc,
    output: () => out,
    exited,
    async url(withinMs = 15_000) {
      await waitFor(() => LISTENING.test(out), withinMs);
      return LISTENING.exec(out)?.[1] ?? '';
    },
  };
}
