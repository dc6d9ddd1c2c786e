import { appendFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/config-file.js';
import type { ScheduleConfig } from '../core/catalog/jobs-config-schema.js';
import { type FanOutResult, fanOutSchedule, normalizeScheduledTime } from '../core/jobs/fan-out-schedule.js';
import type { JobRecord } from '../core/jobs/job.js';
import type { JobStore } from '../core/jobs/job-ports.js';
import type { MemoryJobQueue } from '../jobs/memory/memory-job-queue.js';
import { createLocalJobWorker } from '../jobs/runner/in-process-worker.js';
import { selectJobBackend } from '../jobs/runner/select-job-backend.js';
import { createLocalGateway } from '../wiring/create-local-gateway.js';
import { createJsonLedger, createJsonLogger } from '../wiring/json-lines.js';
import { systemClock, systemRandom } from '../wiring/system-time.js';
import { type CliIo, CliUsageError, EXIT_FAILED, EXIT_OK } from './cli-io.js';
import { formatTable } from './format-table.js';

export const RUN_SCHEDULE_USAGE =
  'usage: switchyard run-schedule <name> [--config FILE] [--time ISO] [--no-spread] [--ledger FILE] [--wait-seconds N]';

/** How long the local run waits for its jobs beyond the spread window, by default, in s. */
const DEFAULT_WAIT_SECONDS = 120;

function jobRow(id: string, record: JobRecord | undefined, dead: boolean): string[] {
  const last = record?.runs.at(-1);
  const status = record ? `${record.status}${dead ? ' (dead-letter queue)' : ''}` : 'missing';
  const delivery = !record?.deliver
    ? '-'
    : record.deliver.deliveredAt !== undefined
      ? 'delivered'
      : 'pending';
  return [id, status, String(record?.runs.length ?? 0), last?.route || '-', delivery];
}

async function table(store: JobStore, ids: string[], dead: ReadonlySet<string>): Promise<string> {
  const rows = await Promise.all(ids.map(async (id) => jobRow(id, await store.get(id), dead.has(id))));
  return `${formatTable(['JOB', 'STATUS', 'RUNS', 'ROUTE', 'DELIVERY'], rows)}\n`;
}

/** Waits until the memory queue holds nothing but dead letters, printing each job as it settles. */
async function drain(queue: MemoryJobQueue, store: JobStore, ids: string[], io: CliIo, waitMs: number) {
  const until = Date.now() + waitMs;
  const reported = new Set<string>();
  for (;;) {
    for (const id of ids) {
      const record = await store.get(id);
      if (reported.has(id) || !record || (record.status !== 'succeeded' && record.status !== 'failed'))
        continue;
      reported.add(id);
      io.stdout(`  ${id}: ${record.status} (${record.runs.at(-1)?.route || 'no route'})\n`);
    }
    const depth = queue.depth();
    if (depth.visible + depth.delayed + depth.inFlight === 0) return true;
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function summaryLine(name: string, time: string, result: FanOutResult, schedule: ScheduleConfig): string {
  const spread = schedule.spreadSeconds ? `, spread over ${schedule.spreadSeconds} s` : '';
  return `schedule ${name} at ${time}: ${result.enqueued.length} enqueued, ${result.duplicates.length} already enqueued${spread}\n`;
}

/**
 * `switchyard run-schedule <name>`: fires one schedule once, as its Scheduler schedule would, for
 * `--time` (default now). Jobs get their durable ids `<schedule>:<job id>:<time>`, so firing the
 * same time again enqueues nothing. With the memory backend the jobs then run in this process
 * (retries, dead-letter queue and webhooks included) and a table shows each job; with SQS the
 * worker runs them and the table shows them queued. Exit 1 when a local job did not succeed.
 */
export async function runScheduleCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      config: { type: 'string' },
      time: { type: 'string' },
      'no-spread': { type: 'boolean', default: false },
      ledger: { type: 'string' },
      'wait-seconds': { type: 'string' },
    },
    allowPositionals: true,
  });
  const [name, ...rest] = positionals;
  if (name === undefined || rest.length > 0) throw new CliUsageError(RUN_SCHEDULE_USAGE);
  const waitSeconds = values['wait-seconds'] === undefined ? undefined : Number(values['wait-seconds']);
  if (waitSeconds !== undefined && !(Number.isInteger(waitSeconds) && waitSeconds > 0))
    throw new CliUsageError('--wait-seconds must be a positive whole number');
  const { config } = loadConfig({ flag: values.config, env: io.env, cwd: io.cwd });
  const configured = config.schedules[name];
  if (!configured) {
    const known = Object.keys(config.schedules).join(', ') || 'none';
    throw new CliUsageError(`unknown schedule '${name}' (known: ${known})`);
  }
  const schedule = values['no-spread'] ? { ...configured, spreadSeconds: 0 } : configured;
  let time: string;
  try {
    time = normalizeScheduledTime(values.time ?? new Date(systemClock.now()).toISOString());
  } catch {
    throw new CliUsageError(
      `--time must be an ISO 8601 time such as 2026-11-29T03:00:00Z, not '${values.time}'`,
    );
  }

  // Log lines (never prompts or answers) go to stderr, so stdout stays the table.
  const log = createJsonLogger((line) => io.stderr(`${line}\n`));
  // Memory unless SWITCHYARD_JOBS says otherwise; with sqlite, a `serve` on the same file runs the jobs.
  const backend = await selectJobBackend({
    config,
    env: io.env,
    clock: systemClock,
    log,
    sqlite: { cwd: io.cwd },
  });
  try {
    const result = await fanOutSchedule(schedule, name, time, {
      store: backend.store,
      queue: backend.queue,
      clock: systemClock,
      random: systemRandom,
      retentionDays: config.jobs.retentionDays,
    });
    io.stdout(summaryLine(name, time, result, schedule));
    const ids = [...result.enqueued.map((e) => e.jobId), ...result.duplicates];
    if (!backend.memory) {
      io.stdout(`jobs: ${backend.description}; the worker runs them (switchyard serve does, too)\n`);
      io.stdout(await table(backend.store, ids, new Set()));
      return EXIT_OK;
    }

    const ledgerFile = values.ledger;
    const local = createLocalGateway({
      config,
      env: io.env,
      log,
      ledger: createJsonLedger(ledgerFile ? (line) => appendFileSync(ledgerFile, `${line}\n`) : () => {}),
    });
    const worker = createLocalJobWorker({
      store: backend.store,
      consumer: backend.consumer,
      gateway: local.gateway,
      catalog: local.catalog,
      env: io.env,
      log,
      clock: systemClock,
      // A one-shot run: a failed job comes back after 1 s, not after a visibility timeout.
      retryDelaySeconds: 1,
      pollIntervalMs: 50,
    });
    const spread = schedule.spreadSeconds;
    if (spread > 0)
      io.stdout(`waiting up to ${spread} s for spread delays (--no-spread runs them at once)\n`);
    worker.start();
    const settled = await drain(
      backend.memory.queue,
      backend.store,
      ids,
      io,
      (waitSeconds ?? spread + DEFAULT_WAIT_SECONDS) * 1000,
    );
    await worker.stop(1_000);
    const dead = new Set(backend.memory.queue.deadLetters().map((m) => m.jobId));
    io.stdout(await table(backend.store, ids, dead));
    if (!settled) io.stderr('switchyard run-schedule: gave up waiting; some jobs had not finished\n');
    const records = await Promise.all(ids.map((id) => backend.store.get(id)));
    const ok = records.every(
      (r) => r?.status === 'succeeded' && (!r.deliver || r.deliver.deliveredAt !== undefined),
    );
    return ok && settled ? EXIT_OK : EXIT_FAILED;
  } finally {
    backend.close();
  }
}
