import { resolve } from 'node:path';
import { createCachedChainParameters } from '../aws/cached-chain-parameters.js';
import { createSsmChainStore, resolveSsmPrefix } from '../aws/ssm-chains.js';
import { type ConfigOrigin, type LoadedConfig, loadConfig } from '../config/config-file.js';
import type { SwitchyardConfig } from '../config/switchyard-config.js';
import type { ChainParameterStore } from '../core/catalog/chain-sources.js';
import type { Logger } from '../core/logger.js';
import type { ProviderAccess } from '../families/provider-family.js';
import { createLocalJobWorker } from '../jobs/runner/in-process-worker.js';
import { selectJobBackend } from '../jobs/runner/select-job-backend.js';
import type { ChainOverrideStore } from '../overrides/chain-override-store.js';
import { createSqliteChainOverrides } from '../overrides/sqlite-chain-overrides.js';
import { selectAdmissionStore } from '../stores/select-admission-store.js';
import { selectBreakerStore } from '../stores/select-breaker-store.js';
import { startTracing } from '../tracing/start-tracing.js';
import { coalescedLines } from '../wiring/coalesced-lines.js';
import { createLocalGateway } from '../wiring/create-local-gateway.js';
import { createJsonLedger, createJsonLogger, type LineWriter } from '../wiring/json-lines.js';
import { createReloadableAuth, type ReloadableAuth } from '../wiring/reloadable-auth.js';
import { startServer } from '../wiring/start-server.js';
import { systemClock } from '../wiring/system-time.js';
import { cliStoreSettings } from './breakers-command.js';
import { type CliIo, CliUsageError, EXIT_OK, processStopSignal, type StopSignal } from './cli-io.js';
import { openLedgerFile } from './ledger-file.js';
import { keySummaryLines, providerKeyStates } from './provider-key-summary.js';
import { checkServeExposure } from './serve-exposure.js';
import { DEFAULT_OVERRIDES_DB, parseServeFlags } from './serve-flags.js';
import { createCliSsmClient } from './ssm-cli-support.js';

/**
 * `--ssm`: the operators' overrides `<prefix>/chains/<pipeline>` between `MODEL_<P>` and the
 * config, as the deployed gateway reads them (timed overrides and canaries included), each read
 * at most once per `aws.chainCacheMs`.
 */
function ssmOverrides(config: SwitchyardConfig, env: NodeJS.ProcessEnv): ChainParameterStore {
  const store = createSsmChainStore({
    client: createCliSsmClient(env),
    ssmPrefix: resolveSsmPrefix(config, env),
  });
  return createCachedChainParameters(store, config.aws.chainCacheMs, systemClock);
}

/**
 * The operator console's store: SSM itself with `--ssm` (what the deployed gateway reads), else a
 * local SQLite file that this gateway reads its overrides from, as it would SSM.
 */
function consoleStore(
  config: SwitchyardConfig,
  io: CliIo,
  ssm: boolean,
  dbFlag: string | undefined,
): { store: ChainOverrideStore; where: string; close(): void } {
  if (ssm) {
    if (dbFlag !== undefined) throw new CliUsageError('--overrides-db and --ssm exclude each other');
    const prefix = resolveSsmPrefix(config, io.env);
    const store = createSsmChainStore({ client: createCliSsmClient(io.env), ssmPrefix: prefix });
    return { store, where: `SSM ${prefix}/chains/`, close() {} };
  }
  const path = resolve(io.cwd, dbFlag ?? DEFAULT_OVERRIDES_DB);
  const store = createSqliteChainOverrides(path, () => Date.now());
  return { store, where: `local store ${path}`, close: () => store.close() };
}

/** What `switchyard start` changes in `serve` when it wires the gateway to the fakes. */
export interface ServeSetup {
  /** The config to serve instead of the one `--config` names. */
  loaded?: LoadedConfig | undefined;
  /** Key access instead of the environment's `apiKeyEnv` variables. */
  access?: ProviderAccess | undefined;
  /** Lines printed instead of the key summary. */
  keySummary?: readonly string[] | undefined;
  /** Lines printed after the banner, from the URL it listens on and the pipelines. */
  after?: ((url: string, pipelines: readonly string[]) => readonly string[]) | undefined;
}

/**
 * `switchyard serve`: the local gateway on 127.0.0.1, breakers in memory or, with `--store
 * dynamodb` / `SWITCHYARD_STORE=dynamodb`, shared in DynamoDB. Prints its URL when ready; ledger
 * and log lines follow as JSON on stdout (or the ledger in `--ledger FILE`). Jobs (`/v1/jobs`) run
 * in-process, kept in a SQLite file (`--jobs-db`, default `.switchyard/jobs.db`) that survives a
 * killed process; in memory with `--jobs memory` (lost when the process stops); or, with
 * `--jobs aws` / `SWITCHYARD_JOBS=aws` / `AWS_ENDPOINT_URL_SQS`, in SQS and DynamoDB. On SIGHUP it re-reads the config file's caller keys, operator keys and schedule readers
 * (a bad file keeps the keys in force). On SIGINT/SIGTERM it stops accepting and lets in-flight
 * requests and jobs finish.
 */
export async function serveCommand(
  args: string[],
  io: CliIo,
  stopSignal: StopSignal = processStopSignal,
  setup: ServeSetup = {},
): Promise<number> {
  const { values, port, maxBody } = parseServeFlags(args, io.env);
  const storeSettings = cliStoreSettings(values.store, io.env);
  const loaded = setup.loaded ?? loadConfig({ flag: values.config, env: io.env, cwd: io.cwd });
  const { origin } = loaded;
  // --metrics / --status turn on what the config may leave off; the other settings stay the config's.
  const config = {
    ...loaded.config,
    metrics: { ...loaded.config.metrics, enabled: loaded.config.metrics.enabled || values.metrics },
    statusPage: {
      ...loaded.config.statusPage,
      enabled: loaded.config.statusPage.enabled || values.status || values.console,
      console: loaded.config.statusPage.console || values.console,
    },
  };
  const operatorConsole = config.statusPage.console
    ? consoleStore(config, io, values.ssm, values['overrides-db'])
    : undefined;
  if (!operatorConsole && values['overrides-db'] !== undefined)
    throw new CliUsageError('--overrides-db belongs to the operator console: add --console');
  const exposure = checkServeExposure(values.host, config, values.insecure);
  const breakerStore = await selectBreakerStore(storeSettings, { ensureTable: true });
  // Log and ledger lines of one turn of the event loop leave stdout in one write (order kept).
  const stdoutLines = coalescedLines((text) => io.stdout(text));
  const stdoutLine: LineWriter = stdoutLines.line;
  const log = createJsonLogger(stdoutLine);
  const admissionStore = selectAdmissionStore(storeSettings, systemClock, {
    restoreTable: { onRestore: (outcome) => logTableRestore(log, storeSettings.tableName, outcome) },
  });
  const ledgerFile = values.ledger === undefined ? undefined : openLedgerFile(values.ledger, io.cwd, log);
  const ledgerLine: LineWriter = ledgerFile?.write ?? stdoutLine;
  // Jobs: a SQLite file by default; memory or DynamoDB + SQS when --jobs / SWITCHYARD_JOBS say so.
  const jobs = await selectJobBackend({
    config,
    env: io.env,
    clock: systemClock,
    log,
    flag: values.jobs,
    fallback: 'sqlite',
    sqlite: { path: values['jobs-db'], cwd: io.cwd },
  });
  const auth = createReloadableAuth(config);
  const tracing = await startTracing(io.env);
  const local = createLocalGateway({
    config,
    env: io.env,
    log,
    ledger: createJsonLedger(ledgerLine),
    access: setup.access,
    maxBodyBytes: maxBody,
    store: breakerStore.store,
    answers: breakerStore.answers?.(config.answerCache),
    admissionStore: admissionStore.store,
    jobs: { store: jobs.store, queue: jobs.queue, retentionDays: config.jobs.retentionDays },
    callerKeys: auth.callerKeys,
    accessPolicy: auth.access,
    overrides: values.ssm ? ssmOverrides(config, io.env) : operatorConsole?.store,
    tracer: tracing?.tracer,
    operator: operatorConsole && {
      store: operatorConsole.store,
      where: operatorConsole.where,
      env: io.env,
      appliesWithinMs: values.ssm ? config.aws.chainCacheMs : 0,
    },
  });
  const worker = createLocalJobWorker({
    store: jobs.store,
    consumer: jobs.consumer,
    gateway: local.gateway,
    catalog: local.catalog,
    env: io.env,
    log,
    clock: systemClock,
    admission: local.jobAdmission,
  });
  const server = await startServer(local.app, { port, host: values.host });
  worker.start();
  // SIGHUP re-reads the config file's caller keys, operator keys and schedule readers.
  const onReload = () => reloadAuth(auth, { env: io.env, cwd: io.cwd }, origin, log);
  process.on('SIGHUP', onReload);

  const from = origin.kind === 'file' ? origin.path : 'the embedded default';
  io.stdout(
    `switchyard listening on ${server.url} (config: ${from}; breakers: ${breakerStore.description})\n`,
  );
  io.stdout(`pipelines: ${local.catalog.pipelines.join(', ') || '(none)'}\n`);
  io.stdout(`jobs: ${jobs.description}\n`);
  const keys = setup.keySummary ?? keySummaryLines(providerKeyStates(config, io.env));
  for (const line of keys) io.stdout(`${line}\n`);
  if (values.ssm) {
    const folder = `${resolveSsmPrefix(config, io.env)}/chains/`;
    io.stdout(
      `chain overrides: SSM ${folder} (each read at most every ${config.aws.chainCacheMs / 1000} s)\n`,
    );
  }
  if (tracing) io.stdout(`traces: OTLP/HTTP to ${tracing.destination}\n`);
  if (config.statusPage.enabled) io.stdout(`status page: ${server.url}/status\n`);
  if (operatorConsole) {
    const operators = config.auth?.operatorKeys.length ?? 0;
    io.stdout(
      operators > 0
        ? `operator console: on the status page; overrides in ${operatorConsole.where}; changes need an operator key\n`
        : 'operator console: on, but it refuses every change: no operator key is configured (auth.keys and auth.operatorKeys)\n',
    );
  }
  if (config.metrics.enabled) io.stdout(`metrics: ${server.url}/metrics\n`);
  for (const line of setup.after?.(server.url, local.catalog.pipelines) ?? []) io.stdout(`${line}\n`);
  for (const warning of exposure) io.stderr(`${warning}\n`);

  const signal = await stopSignal();
  process.off('SIGHUP', onReload);
  stdoutLines.flush();
  io.stdout(`switchyard: ${signal} received, finishing in-flight requests\n`);
  await server.close();
  await worker.stop();
  jobs.close();
  breakerStore.close();
  admissionStore.close();
  operatorConsole?.close();
  await ledgerFile?.close();
  await tracing?.shutdown();
  stdoutLines.close();
  io.stdout('switchyard: stopped\n');
  return EXIT_OK;
}

/**
 * Re-reads the config file and puts its auth settings in force. Any failure (unreadable file,
 * invalid config, a reload that would turn authentication off) is one ERROR line, and the keys in
 * force stay as they were.
 */
function reloadAuth(
  auth: ReloadableAuth,
  from: { env: NodeJS.ProcessEnv; cwd: string },
  origin: ConfigOrigin,
  log: Logger,
): void {
  if (origin.kind !== 'file') {
    log.warn('SIGHUP ignored: serve runs on the embedded default config, there is no file to reload');
    return;
  }
  let outcome: ReturnType<ReloadableAuth['apply']>;
  try {
    outcome = auth.apply(loadConfig({ flag: origin.path, env: from.env, cwd: from.cwd }).config);
  } catch (error) {
    outcome = { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
  if (outcome.ok) {
    log.info('caller keys reloaded', {
      file: origin.path,
      keys: outcome.keys,
      operatorKeys: outcome.operatorKeys,
    });
  } else {
    log.error('caller keys NOT reloaded; the previous keys stay in force', {
      file: origin.path,
      reason: outcome.reason,
    });
  }
}

/** The admission table went missing while `serve` ran and was created again (or could not be). */
function logTableRestore(
  log: Logger,
  tableName: string,
  outcome: { ok: true } | { ok: false; error: string },
) {
  if (outcome.ok)
    log.warn('admission table was missing and is created again; its counters start from zero', { tableName });
  else
    log.error('admission table is missing and could not be created again', {
      tableName,
      error: outcome.error,
    });
}
