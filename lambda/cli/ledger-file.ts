import { createWriteStream, openSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Logger } from '../core/logger.js';
import type { LineWriter } from '../wiring/json-lines.js';
import { CliUsageError } from './cli-io.js';

/**
 * The `--ledger` file, opened (append) before the server starts so a bad path is a one-line
 * error at once, then written through a stream: a disk problem later is logged, never thrown
 * into a request.
 */
export function openLedgerFile(
  path: string,
  cwd: string,
  log: Logger,
): { write: LineWriter; close(): Promise<void> } {
  const full = resolve(cwd, path);
  let fd: number;
  try {
    fd = openSync(full, 'a');
  } catch (error) {
    throw new CliUsageError(
      `cannot open --ledger ${full}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  const stream = createWriteStream('', { fd });
  let failed = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (!failed)
      log.error('ledger file write failed; ledger lines are being lost', { file: full, code: error.code });
    failed = true;
  });
  return {
    write: (line) => {
      if (!failed) stream.write(`${line}\n`);
    },
    close: () => new Promise<void>((done) => stream.end(done)),
  };
}
