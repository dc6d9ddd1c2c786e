import { parseArgs } from 'node:util';
import { loadConfig } from '../config/config-file.js';
import type { BreakerStore } from '../core/breaker/breaker-store.js';
import { ConfigError } from '../core/errors.js';
import type { BreakerView } from '../core/gateway/gateway.js';
import { silentLogger } from '../core/logger.js';
import {
  type BreakerStoreSettings,
  breakerStoreSettings,
  selectBreakerStore,
} from '../stores/select-breaker-store.js';
import { createLocalGateway } from '../wiring/create-local-gateway.js';
import { type CliIo, CliUsageError, EXIT_FAILED, EXIT_OK } from './cli-io.js';
import { formatTable } from './format-table.js';

/** One-line usage of `switchyard breakers`, printed on a usage error. */
export const BREAKERS_USAGE =
  'usage: switchyard breakers [--config FILE] [--store memory|dynamodb] [--pipeline P] [--json]';

/** The store settings of a CLI command; a bad `--store` or `SWITCHYARD_*` value is a usage error. */
export function cliStoreSettings(flag: string | undefined, env: NodeJS.ProcessEnv): BreakerStoreSettings {
  try {
    return breakerStoreSettings({ flag, env });
  } catch (error) {
    if (error instanceof ConfigError) throw new CliUsageError(error.message);
    throw error;
  }
}

/** Passes calls through and keeps what the store threw, which `createBreakers` would swallow. */
function watched(store: BreakerStore, errors: unknown[]): BreakerStore {
  const keep = (error: unknown): never => {
    errors.push(error);
    throw error;
  };
  return {
    readPipeline: (pipeline, now) => store.readPipeline(pipeline, now).catch(keep),
    record: (pipeline, model, sample, policy) => store.record(pipeline, model, sample, policy).catch(keep),
    tryOpen: (pipeline, model, request) => store.tryOpen(pipeline, model, request).catch(keep),
    claimProbe: (pipeline, model, claim) => store.claimProbe(pipeline, model, claim).catch(keep),
    startRamp: (pipeline, model, request) => store.startRamp(pipeline, model, request).catch(keep),
    readRoutes: (routes, now) => store.readRoutes(routes, now).catch(keep),
    coolRoute: (route, sample, policy) => store.coolRoute(route, sample, policy).catch(keep),
    claimRouteProbe: (route, claim, keepMs) => store.claimRouteProbe(route, claim, keepMs).catch(keep),
    settleRouteProbe: (route, outcome, keepMs) => store.settleRouteProbe(route, outcome, keepMs).catch(keep),
  };
}

const dash = (value: string | null) => value ?? '-';

/** The RECOVERY cell (docs/concepts.md#breaker-recovery): where a `ramp` breaker is on its way back. */
function recoveryCell(v: BreakerView): string {
  if (v.phase === 'ramp') return `ramp ${v.rampShare}% until ${v.rampUntil}`;
  if (v.recovery !== 'ramp' && v.phase !== 'probing') return '-';
  if (v.phase === 'probing') return `probing ${v.probeStreak} ok, next ${v.nextProbeAt ?? 'now'}`;
  return v.phase === 'open' ? `first probe ${v.nextProbeAt ?? 'now'}` : '-';
}

function table(views: BreakerView[]): string {
  const rows = views.map((v) => [
    v.pipeline,
    v.model,
    dash(v.route),
    v.state,
    dash(v.openUntil),
    dash(v.openReason),
    `${v.windowAttempts}/${v.windowFailures}`,
    String(v.consecutive429),
    dash(v.coolingUntil),
    v.routeCoolingUntil ? `${v.routeCoolingUntil} (${v.routeCooledBy ?? '?'})` : '-',
    recoveryCell(v),
  ]);
  const header = [
    'PIPELINE',
    'MODEL',
    'ROUTE',
    'STATE',
    'OPEN-UNTIL',
    'REASON',
    'WINDOW(attempts/failures)',
    '429-STREAK',
    'COOLING-UNTIL',
    'ROUTE-COOLING-UNTIL(by)',
    'RECOVERY',
  ];
  return `${formatTable(header, rows)}\n`;
}

/**
 * `switchyard breakers`: the breaker state of every configured pipeline (or `--pipeline P`) from
 * the configured store, as a table or, with `--json`, as `GET /v1/breakers` answers. A store
 * that cannot be read exits 1 with one line; it never prints a made-up "closed".
 */
export async function breakersCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      config: { type: 'string' },
      store: { type: 'string' },
      pipeline: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new CliUsageError(BREAKERS_USAGE);
  const settings = cliStoreSettings(values.store, io.env);
  const { config } = loadConfig({ flag: values.config, env: io.env, cwd: io.cwd });
  const selected = await selectBreakerStore(settings);
  try {
    const errors: unknown[] = [];
    const local = createLocalGateway({
      config,
      env: io.env,
      log: silentLogger,
      ledger: () => {},
      store: watched(selected.store, errors),
    });
    const views = await local.gateway.breakers(values.pipeline);
    if (views === undefined) throw new CliUsageError(`unknown pipeline '${values.pipeline}'`);
    if (errors.length > 0) {
      const error = errors[0];
      const why = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      io.stderr(`switchyard breakers: cannot read ${selected.description}: ${why}\n`);
      return EXIT_FAILED;
    }
    if (settings.kind === 'memory') {
      io.stderr(
        'switchyard breakers: the memory store lives inside each serve process, so this one is empty; ' +
          'share state with SWITCHYARD_STORE=dynamodb, or ask a running gateway: GET /v1/breakers\n',
      );
    }
    io.stdout(values.json ? `${JSON.stringify({ object: 'list', data: views })}\n` : table(views));
    return EXIT_OK;
  } finally {
    selected.close();
  }
}
