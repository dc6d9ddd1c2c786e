import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { runCli } from '../../lambda/cli/run-cli.js';
import type { Clock } from '../../lambda/core/time.js';

/**
 * Runs the CLI in-process with captured output; `stdin`, when given, is piped in as standard input;
 * `clock`, when given, is the commands' time.
 */
export async function runCliCaptured(
  argv: string[],
  env: NodeJS.ProcessEnv = {},
  cwd = process.cwd(),
  stdin?: string,
  clock?: Clock,
) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env,
    cwd,
    stdin: stdin === undefined ? undefined : Readable.from([stdin]),
    clock,
  });
  return { code, stdout, stderr };
}

/** Writes a config file into a fresh temp dir and returns its path. */
export function writeTempConfig(config: unknown, name = 'switchyard.config.json'): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-'));
  const path = join(dir, name);
  writeFileSync(path, typeof config === 'string' ? config : JSON.stringify(config, null, 2));
  return path;
}
