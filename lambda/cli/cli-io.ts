import type { Clock } from '../core/time.js';

/** The command's standard input: a terminal (prompts read without echo) or a pipe / file. */
export interface CliInput extends AsyncIterable<string | Buffer> {
  /** True when a person types at a terminal. */
  isTTY?: boolean | undefined;
  /** Raw mode on a terminal: keys arrive one by one and are not echoed. */
  setRawMode?: ((mode: boolean) => unknown) | undefined;
  on(event: 'data', listener: (chunk: string | Buffer) => void): unknown;
  off(event: 'data', listener: (chunk: string | Buffer) => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

/** What a CLI command may touch, passed in so commands run the same in tests and in a shell. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Standard input, for the commands that read a secret from it. Absent: such commands refuse. */
  stdin?: CliInput | undefined;
  /** The time, for commands that write or read timed overrides. Default: the system clock. */
  clock?: Clock | undefined;
}

/** Exit statuses: 0 done, 1 the work failed, 2 bad input (usage, config, a chain with no model). */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_BAD_INPUT = 2;

/** A problem the user can fix, reported as one line without a stack trace. */
export class CliUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliUsageError';
  }
}

/** Resolves with the signal's name when the process is asked to stop (SIGINT / SIGTERM). */
export type StopSignal = () => Promise<string>;

export const processStopSignal: StopSignal = () =>
  new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });

/** A TCP port from a flag or variable (`source` names it in the error); undefined when not given. */
export function parsePort(value: string | undefined, source: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new CliUsageError(`${source} must be a port number between 0 and 65535, not '${value}'`);
  }
  return port;
}
