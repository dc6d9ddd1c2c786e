/**
 * The flags of `switchyard serve`: its usage line, their defaults, and their parsing and checks
 * (those that need no config), so a bad flag is a usage error before anything opens.
 */
import { parseArgs } from 'node:util';
import { jobBackendKind } from '../jobs/runner/select-job-backend.js';
import { CliUsageError, parsePort } from './cli-io.js';

export const SERVE_USAGE =
  'usage: switchyard serve [--config FILE] [--port N] [--host ADDR] [--ledger FILE] [--max-body-bytes N]' +
  ' [--store memory|dynamodb] [--jobs sqlite|memory|aws] [--jobs-db FILE] [--ssm] [--insecure] [--metrics] [--status]' +
  ' [--console] [--overrides-db FILE]';

/** Where `serve` keeps operator overrides without `--ssm`, relative to the working directory. */
export const DEFAULT_OVERRIDES_DB = '.switchyard/overrides.db';

/** Default port of the local gateway. */
export const DEFAULT_PORT = 8787;

/** Parses and checks `serve`'s flags: the flag values, the port to listen on and `--max-body-bytes`. */
export function parseServeFlags(args: string[], env: NodeJS.ProcessEnv) {
  const { values, positionals } = parseArgs({
    args,
    options: {
      config: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      ledger: { type: 'string' },
      'max-body-bytes': { type: 'string' },
      store: { type: 'string' },
      jobs: { type: 'string' },
      'jobs-db': { type: 'string' },
      insecure: { type: 'boolean', default: false },
      ssm: { type: 'boolean', default: false },
      metrics: { type: 'boolean', default: false },
      status: { type: 'boolean', default: false },
      console: { type: 'boolean', default: false },
      'overrides-db': { type: 'string' },
    },
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new CliUsageError(SERVE_USAGE);
  const port = parsePort(values.port, '--port') ?? parsePort(env.PORT, 'PORT') ?? DEFAULT_PORT;
  const maxBody = values['max-body-bytes'] === undefined ? undefined : Number(values['max-body-bytes']);
  if (maxBody !== undefined && !(Number.isInteger(maxBody) && maxBody > 0)) {
    throw new CliUsageError('--max-body-bytes must be a positive integer');
  }

  // Checked before anything opens: a bad --jobs / SWITCHYARD_JOBS is a usage error at once.
  const jobsKind = jobBackendKind(env, { flag: values.jobs, fallback: 'sqlite' });
  if (values['jobs-db'] !== undefined && jobsKind !== 'sqlite') {
    throw new CliUsageError(`--jobs-db needs the sqlite job backend, not '${jobsKind}'`);
  }
  return { values, port, maxBody };
}
