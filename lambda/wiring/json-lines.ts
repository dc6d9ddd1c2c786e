import type { LedgerSink } from '../core/ledger/ledger-entry.js';
import type { LogFields, Logger } from '../core/logger.js';

/** Where JSON lines go: stdout by default, a file with `--ledger`, an array in tests. */
export type LineWriter = (line: string) => void;

/**
 * A logger writing one JSON object per line: `{"level","time","message",...fields}`. Fields are
 * the caller's structured data; prompt and output text never reach here.
 */
export function createJsonLogger(write: LineWriter, options: { debug?: boolean } = {}): Logger {
  const at =
    (level: string) =>
    (message: string, fields?: LogFields): void => {
      write(JSON.stringify({ level, time: new Date().toISOString(), message, ...fields }));
    };
  return {
    debug: options.debug ? at('debug') : () => {},
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
  };
}

/**
 * The attempt ledger as JSON lines, each stamped with the time it was written: `time` first, then
 * the entry's fields in their order, exactly as `JSON.stringify({ time, ...entry })` writes them,
 * without building that second object for every line.
 */
export function createJsonLedger(write: LineWriter): LedgerSink {
  return (entry) => {
    const fields = JSON.stringify(entry);
    const time = `{"time":"${new Date().toISOString()}"`;
    write(fields === '{}' ? `${time}}` : `${time},${fields.slice(1)}`);
  };
}
