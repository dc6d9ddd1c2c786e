import { parseArgs } from 'node:util';
import { loadConfig } from '../config/config-file.js';
import { createAdmission } from '../core/admission/admission.js';
import type { UsageLine } from '../core/admission/read-usage.js';
import { usageDaySchema } from '../http/usage-route.js';
import { selectAdmissionStore } from '../stores/select-admission-store.js';
import { systemClock } from '../wiring/system-time.js';
import { cliStoreSettings } from './breakers-command.js';
import { type CliIo, CliUsageError, EXIT_FAILED, EXIT_OK } from './cli-io.js';
import { formatTable } from './format-table.js';

/** One-line usage of `switchyard usage`, printed on a usage error. */
export const USAGE_USAGE =
  'usage: switchyard usage [--config FILE] [--store memory|dynamodb] [--key K] [--pipeline P] [--day YYYY-MM-DD] [--json]';

const amount = (line: UsageLine, value: number) =>
  line.kind === 'spend' ? `$${value.toFixed(6)}` : String(value);

function table(lines: UsageLine[]): string {
  const rows = lines.map((l) => [
    `${l.scope} ${l.name}`,
    l.kind,
    l.window === 'day' ? (l.day ?? '') : 'last minute',
    amount(l, l.used),
    amount(l, l.limit),
    amount(l, l.remaining),
    `${l.limit > 0 ? Math.round((l.used / l.limit) * 100) : 0}%`,
  ]);
  return `${formatTable(['WHO', 'LIMIT', 'WINDOW', 'USED', 'OF', 'LEFT', 'USE'], rows)}\n`;
}

/**
 * `switchyard usage`: spend, tokens and requests against each admission limit, read from the
 * configured store — every named key and pipeline of `admission`, or `--key K` / `--pipeline P`
 * (a key not named shows `defaultKey`'s limits). Spend is per UTC `--day` (default today);
 * requests and tokens are the sliding minute, today only. A store that cannot be read exits 1.
 */
export async function usageCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      config: { type: 'string' },
      store: { type: 'string' },
      key: { type: 'string' },
      pipeline: { type: 'string' },
      day: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new CliUsageError(USAGE_USAGE);
  const day = values.day === undefined ? undefined : usageDaySchema.safeParse(values.day);
  if (day && !day.success) throw new CliUsageError(`--day ${day.error.issues[0]?.message ?? 'is invalid'}`);
  const settings = cliStoreSettings(values.store, io.env);
  const { config } = loadConfig({ flag: values.config, env: io.env, cwd: io.cwd });
  const { key, pipeline } = values;
  const selected = selectAdmissionStore(settings, systemClock);
  const admission = createAdmission({
    store: selected.store,
    clock: systemClock,
    settings: async () => config.admission,
    onStoreFailure: () => {},
  });
  const named = key === undefined && pipeline === undefined;
  const askKeys = named ? Object.keys(config.admission.keys) : key === undefined ? [] : [key];
  const askPipelines = named
    ? Object.keys(config.admission.pipelines)
    : pipeline === undefined
      ? []
      : [pipeline];
  try {
    const lines: UsageLine[] = [];
    for (const k of askKeys) lines.push(...(await admission.usage(k, undefined, day?.data)));
    for (const p of askPipelines) lines.push(...(await admission.usage(undefined, p, day?.data)));
    if (settings.kind === 'memory') {
      io.stderr(
        'switchyard usage: the memory store lives inside each serve process, so this one is empty; ' +
          'share counters with SWITCHYARD_STORE=dynamodb, or ask a running gateway: GET /v1/usage\n',
      );
    }
    io.stdout(values.json ? `${JSON.stringify({ object: 'list', data: lines })}\n` : table(lines));
    return EXIT_OK;
  } catch (error) {
    const why = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    io.stderr(`switchyard usage: cannot read the admission counters: ${why}\n`);
    return EXIT_FAILED;
  } finally {
    selected.close();
  }
}
