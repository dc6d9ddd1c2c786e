import { appendFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config-file.js';
import { createLocalGateway } from '../create-local-gateway.js';
import { createJsonLedger, createJsonLogger, type LineWriter } from '../json-lines.js';
import { startServer } from '../start-server.js';
import { type CliIo, CliUsageError, EXIT_OK, processStopSignal, type StopSignal } from './cli-io.js';

export const SERVE_USAGE =
  'usage: switchyard serve [--config FILE] [--port N] [--host ADDR] [--ledger FILE] [--max-body-bytes N]';

/** Default port of the local gateway. */
export const DEFAULT_PORT = 8787;

function portFrom(value: string | undefined, source: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new CliUsageError(`${source} must be a port number between 0 and 65535, not '${value}'`);
  }
  return port;
}

/**
 * `switchyard serve`: the local gateway on 127.0.0.1 (memory breaker store). Prints its URL when
 * ready; ledger and log lines follow as JSON on stdout (or the ledger in `--ledger FILE`). On
 * SIGINT/SIGTERM it stops accepting and lets in-flight requests finish.
 */
export async function serveCommand(
  args: string[],
  io: CliIo,
  stopSignal: StopSignal = processStopSignal,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      config: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      ledger: { type: 'string' },
      'max-body-bytes': { type: 'string' },
    },
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new CliUsageError(SERVE_USAGE);
  const port = portFrom(values.port, '--port') ?? portFrom(io.env.PORT, 'PORT') ?? DEFAULT_PORT;
  const maxBody = values['max-body-bytes'] === undefined ? undefined : Number(values['max-body-bytes']);
  if (maxBody !== undefined && !(Number.isInteger(maxBody) && maxBody > 0)) {
    throw new CliUsageError('--max-body-bytes must be a positive integer');
  }

  const { config, origin } = loadConfig({ flag: values.config, env: io.env, cwd: io.cwd });
  const stdoutLine: LineWriter = (line) => io.stdout(`${line}\n`);
  const ledgerFile = values.ledger;
  const ledgerLine: LineWriter = ledgerFile ? (line) => appendFileSync(ledgerFile, `${line}\n`) : stdoutLine;
  const log = createJsonLogger(stdoutLine);
  const local = createLocalGateway({
    config,
    env: io.env,
    log,
    ledger: createJsonLedger(ledgerLine),
    maxBodyBytes: maxBody,
  });
  const server = await startServer(local.app, { port, host: values.host });

  const from = origin.kind === 'file' ? origin.path : 'the embedded default';
  io.stdout(`switchyard listening on ${server.url} (config: ${from}; breakers: memory)\n`);
  io.stdout(`pipelines: ${local.catalog.pipelines.join(', ') || '(none)'}\n`);

  const signal = await stopSignal();
  io.stdout(`switchyard: ${signal} received, finishing in-flight requests\n`);
  await server.close();
  io.stdout('switchyard: stopped\n');
  return EXIT_OK;
}
