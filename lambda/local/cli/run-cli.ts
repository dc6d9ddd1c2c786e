import { ConfigError } from '../../core/errors.js';
import { chainCommand } from './chain-command.js';
import { type CliIo, CliUsageError, EXIT_BAD_INPUT, EXIT_FAILED } from './cli-io.js';
import { explainCommand } from './explain-command.js';
import { fakesCommand } from './fakes-command.js';
import { keysCommand } from './keys-command.js';
import { serveCommand } from './serve-command.js';

type Command = (args: string[], io: CliIo) => Promise<number>;

const COMMANDS: Record<string, { run: Command; summary: string }> = {
  serve: {
    run: (args, io) => serveCommand(args, io),
    summary: 'run the local gateway (OpenAI-compatible HTTP API)',
  },
  probe: {
    run: async (args, io) => (await import('./probe-command.js')).probeCommand(args, io),
    summary: 'send a minimal prompt to every configured model and report dead or retired ones',
  },
  explain: { run: explainCommand, summary: 'show how a chain or a pipeline resolves against the catalog' },
  fakes: {
    run: (args, io) => fakesCommand(args, io),
    summary: 'run fake OpenAI and Bedrock upstreams to try fallbacks by hand',
  },
  chain: { run: chainCommand, summary: 'get, set, history or rollback of a pipeline chain in SSM' },
  keys: { run: keysCommand, summary: 'issue, revoke or list caller keys (config file or SSM)' },
  breakers: {
    run: async (args, io) => (await import('./breakers-command.js')).breakersCommand(args, io),
    summary: 'print breaker state from the configured store (memory or DynamoDB)',
  },
  demo: {
    run: async (args, io) => (await import('./demo-command.js')).demoCommand(args, io),
    summary: 'demo-day spike and cron burst on simulated providers, with a report',
  },
  replay: {
    run: async (args, io) => (await import('./replay-command.js')).replayCommand(args, io),
    summary: 'move dead-lettered jobs back to the job queue (--dry-run first)',
  },
  'run-schedule': {
    run: async (args, io) => (await import('./run-schedule-command.js')).runScheduleCommand(args, io),
    summary: 'fire one schedule once; locally, run its jobs and show each one',
  },
};

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `usage: switchyard <command> [options]\n\ncommands:\n${lines.join('\n')}\n`;
}

/**
 * Runs one CLI command and returns its exit status. Every problem the user can fix becomes one
 * line on stderr and status 2; nothing here prints a stack trace.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(usage());
    return name === undefined ? EXIT_BAD_INPUT : 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.stderr(`switchyard: unknown command '${name}'\n${usage()}`);
    return EXIT_BAD_INPUT;
  }
  try {
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof CliUsageError || error instanceof ConfigError) {
      io.stderr(`switchyard ${name}: ${error.message}\n`);
      return EXIT_BAD_INPUT;
    }
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      io.stderr(`switchyard ${name}: ${error.message}\n`);
      return EXIT_BAD_INPUT;
    }
    io.stderr(`switchyard ${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_FAILED;
  }
}
