import { ConfigError } from '../core/errors.js';
import { OverrideRefusedError } from '../overrides/override-refused-error.js';
import { CHAIN_USAGE, chainCommand } from './chain-command.js';
import { type CliIo, CliUsageError, EXIT_BAD_INPUT, EXIT_FAILED } from './cli-io.js';
import { EXPLAIN_USAGE, explainCommand } from './explain-command.js';
import { FAKES_USAGE, fakesCommand } from './fakes-command.js';
import { KEYS_USAGE, keysCommand } from './keys-command.js';
import { serveCommand } from './serve-command.js';
import { SERVE_USAGE } from './serve-flags.js';

type Command = (args: string[], io: CliIo) => Promise<number>;

/** A command: how to run it, one line for the command list, and its usage text for `--help`. */
interface CommandEntry {
  run: Command;
  summary: string;
  /** Loaded lazily, like the command itself, so `--help` costs no import of the AWS SDK. */
  usage: () => Promise<string>;
}

const COMMANDS: Record<string, CommandEntry> = {
  serve: {
    run: (args, io) => serveCommand(args, io),
    summary: 'run the local gateway (OpenAI-compatible HTTP API)',
    usage: async () => SERVE_USAGE,
  },
  start: {
    run: async (args, io) => (await import('./start-command.js')).startCommand(args, io),
    summary:
      'npm start: serve, or with no provider key, serve on local fake upstreams and print a request to try',
    usage: async () => (await import('./start-command.js')).START_USAGE,
  },
  probe: {
    run: async (args, io) => (await import('./probe-command.js')).probeCommand(args, io),
    summary: 'send a minimal prompt to every configured model and report dead or retired ones',
    usage: async () => (await import('./probe-command.js')).PROBE_USAGE,
  },
  explain: {
    run: explainCommand,
    summary: 'show how a chain or a pipeline resolves, and which source (env, SSM override, config) won',
    usage: async () => EXPLAIN_USAGE,
  },
  fakes: {
    run: (args, io) => fakesCommand(args, io),
    summary: 'run fake OpenAI-compatible, Bedrock and Anthropic upstreams to try fallbacks by hand',
    usage: async () => FAKES_USAGE,
  },
  chain: {
    run: chainCommand,
    summary: "get, set, clear, history or rollback of a pipeline's operator override in SSM",
    usage: async () => CHAIN_USAGE,
  },
  keys: {
    run: keysCommand,
    summary: 'issue, revoke or list caller keys (config file or SSM)',
    usage: async () => KEYS_USAGE,
  },
  'provider-keys': {
    run: async (args, io) => (await import('./provider-keys-command.js')).providerKeysCommand(args, io),
    summary: 'set or list the upstream API keys of a deployment (SSM or Secrets Manager, per the config)',
    usage: async () => (await import('./provider-keys-command.js')).PROVIDER_KEYS_USAGE,
  },
  doctor: {
    run: async (args, io) => (await import('./doctor-command.js')).doctorCommand(args, io),
    summary: 'preflight of a deployment: provider keys, caller keys, chain overrides, Bedrock ids',
    usage: async () => (await import('./doctor-command.js')).DOCTOR_USAGE,
  },
  breakers: {
    run: async (args, io) => (await import('./breakers-command.js')).breakersCommand(args, io),
    summary: 'print breaker state from the configured store (memory or DynamoDB)',
    usage: async () => (await import('./breakers-command.js')).BREAKERS_USAGE,
  },
  usage: {
    run: async (args, io) => (await import('./usage-command.js')).usageCommand(args, io),
    summary: 'print spend, tokens and requests against each admission limit from the store',
    usage: async () => (await import('./usage-command.js')).USAGE_USAGE,
  },
  demo: {
    run: async (args, io) => (await import('./demo-command.js')).demoCommand(args, io),
    summary: 'demo-day spike and cron burst on simulated providers, with a report',
    usage: async () => (await import('./demo-command.js')).DEMO_USAGE,
  },
  replay: {
    run: async (args, io) => (await import('./replay-command.js')).replayCommand(args, io),
    summary: 'move dead-lettered jobs back to the job queue (--dry-run first)',
    usage: async () => (await import('./replay-command.js')).REPLAY_USAGE,
  },
  'run-schedule': {
    run: async (args, io) => (await import('./run-schedule-command.js')).runScheduleCommand(args, io),
    summary: 'fire one schedule once; locally, run its jobs and show each one',
    usage: async () => (await import('./run-schedule-command.js')).RUN_SCHEDULE_USAGE,
  },
};

/** `--help` or `-h` among the options (not after a `--`, where it would be a value). */
function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

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
    if (asksForHelp(args)) {
      io.stdout(`${await command.usage()}\n`);
      return 0;
    }
    return await command.run(args, io);
  } catch (error) {
    if (
      error instanceof CliUsageError ||
      error instanceof ConfigError ||
      error instanceof OverrideRefusedError
    ) {
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
