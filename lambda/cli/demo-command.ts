import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import * as z from 'zod';
import { DEFAULT_DEMO_SECONDS } from '../dev/demo/demo-scenario.js';
import { runDemo } from '../dev/demo/run-demo.js';
import {
  type CliIo,
  CliUsageError,
  EXIT_FAILED,
  EXIT_OK,
  processStopSignal,
  type StopSignal,
} from './cli-io.js';

export const DEMO_USAGE =
  'usage: switchyard demo [--seconds N] [--report PATH] [--quiet] [--no-declared-quotas]';

/** Default report file, relative to the working directory. */
export const DEFAULT_REPORT = 'demo-report.html';

const flagsSchema = z.object({
  /** Length of the load in seconds. Default 60; a test runs a few. */
  seconds: z.coerce
    .number({ error: '--seconds must be a number' })
    .min(3, '--seconds must be at least 3')
    .max(600, '--seconds must be at most 600')
    .default(DEFAULT_DEMO_SECONDS),
  /** Report path. Default `./demo-report.html`. */
  report: z.string().trim().min(1, '--report must name a file').default(DEFAULT_REPORT),
  /** No live view: only the summary. */
  quiet: z.boolean().default(false),
  /**
   * Leave the simulated providers' quotas undeclared: the gateway learns them from 429s only (the
   * "before" of docs/concepts.md#declared-quotas). By default the demo declares them.
   */
  'no-declared-quotas': z.boolean().default(false),
  /** Accepted for scripts written when declaring was not the default; declaring is the default now. */
  'declare-quotas': z.boolean().default(false),
});

/** Fails before the run, not a minute later, when the report cannot be written where asked. */
function checkWritable(reportPath: string): void {
  try {
    if (statSync(reportPath, { throwIfNoEntry: false })?.isDirectory()) {
      throw new CliUsageError(`--report ${reportPath} is a directory; name a file`);
    }
    mkdirSync(dirname(reportPath), { recursive: true });
    accessSync(dirname(reportPath), constants.W_OK);
  } catch (error) {
    if (error instanceof CliUsageError) throw error;
    throw new CliUsageError(`cannot write the report to ${reportPath}: ${(error as Error).message}`);
  }
}

/** Test seams of {@link demoCommand}. */
export interface DemoCommandOptions {
  /** Default: SIGINT / SIGTERM. */
  stopSignal?: StopSignal | undefined;
  /** Redraw the live view in place. Default: stdout is a terminal and `CI` is not set. */
  tty?: boolean | undefined;
}

/**
 * `switchyard demo`: simulated providers and the real gateway on loopback, the demo-day spike and
 * the cron burst of docs/design.md#scenarios over real HTTP, a live view, a summary and `demo-report.html`. Exits 0
 * when the run completed, 1 when it was stopped early.
 */
export async function demoCommand(
  args: string[],
  io: CliIo,
  options: DemoCommandOptions = {},
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      seconds: { type: 'string' },
      report: { type: 'string' },
      quiet: { type: 'boolean' },
      'no-declared-quotas': { type: 'boolean' },
      'declare-quotas': { type: 'boolean' },
    },
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new CliUsageError(DEMO_USAGE);
  const parsed = flagsSchema.safeParse(values);
  if (!parsed.success) throw new CliUsageError(parsed.error.issues[0]?.message ?? DEMO_USAGE);
  const flags = parsed.data;
  if (flags['declare-quotas'] && flags['no-declared-quotas']) {
    throw new CliUsageError('--declare-quotas and --no-declared-quotas contradict each other; give one');
  }
  const tty = options.tty ?? (process.stdout.isTTY === true && !io.env.CI && io.env.TERM !== 'dumb');

  const reportPath = resolve(io.cwd, flags.report);
  checkWritable(reportPath);

  const stop = new AbortController();
  const stopSignal = options.stopSignal ?? processStopSignal;
  void stopSignal().then(() => stop.abort());

  io.stdout(
    `switchyard demo: ${flags.seconds} s of simulated traffic through the real gateway on 127.0.0.1\n`,
  );
  const result = await runDemo({
    seconds: flags.seconds,
    reportPath,
    write: io.stdout,
    view: flags.quiet ? 'quiet' : tty ? 'tty' : 'lines',
    // Never the last column: filling it makes some terminals wrap, and the redraw would drift.
    width: Math.max(40, Math.min(79, (process.stdout.columns ?? 80) - 1)),
    signal: stop.signal,
    declareQuotas: !flags['no-declared-quotas'],
  });
  if (!result.completed) {
    io.stderr('switchyard demo: stopped before the run completed; the report covers part of it\n');
    return EXIT_FAILED;
  }
  return EXIT_OK;
}
