/**
 * bench/handler-concurrency: the bundled API handler as one Lambda Managed Instances worker thread
 * runs it — one module instance, many invocations at once (issue 30 item 1). The bundle is built
 * with `cdk synth`'s esbuild options, imported once in a fresh process with the runtime's
 * multi-concurrent InvokeStore, and driven with API Gateway events at 1, 8, 32 and 64 in flight
 * against the overhead bench's instant upstream, with the fake SSM and upstream in this process
 * and the breaker table in dynalite (its own process), so that the CPU measured is the handler's
 * alone; then again on the in-memory breaker store, to show the handler without its DynamoDB
 * calls (dynalite, one process on a shared VM, also bounds the first table's throughput). It also times module init and the first requests of the deployed build (chunks loaded on
 * first use) against one eager file: the first request builds the app, the first Anthropic request
 * loads that family's adapter and SDK.
 *
 *   npm run bench:handler-concurrency                  # 1, 8, 32, 64 in flight; 1,000 invocations each; 3 fresh processes per build for the first requests
 *   npm run bench:handler-concurrency -- --quick       # 1 and 8 in flight, 50 invocations, one process per build: proves it runs
 */
import { statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { type ApiBundle, bundleApiHandler } from '../../test/helpers/api-bundle.js';
import { loadedAtInit } from '../cold-start/loaded-at-init.js';
import type { ProbeFigures, TimedCall } from './probe.js';
import { startConcurrencyRig } from './rig.js';

const quick = process.argv.includes('--quick');
const LEVELS = quick ? [1, 8] : [1, 8, 32, 64];
const INVOCATIONS = quick ? 50 : 1000;
const WARMUP = quick ? 20 : 300;
const RUNS = quick ? 1 : 3;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const table = (header: string[], rows: string[][]) => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
};

const load = loadavg()
  .map((l) => l.toFixed(1))
  .join(' ');
const [split, eager, rig] = await Promise.all([
  bundleApiHandler({ splitting: true }),
  bundleApiHandler({ splitting: false }),
  startConcurrencyRig(),
]);
const runProbe = (
  bundle: ApiBundle,
  name: string,
  levels: number[],
  store: 'dynamodb' | 'memory' = 'dynamodb',
): Promise<ProbeFigures> =>
  rig.runProbe(bundle.entry, name, { levels, invocations: INVOCATIONS, warmup: WARMUP, store });

try {
  const builds = [
    { label: 'deployed: chunks on first use', bundle: split, runs: [] as ProbeFigures[] },
    { label: 'one eager file', bundle: eager, runs: [] as ProbeFigures[] },
  ];
  // The concurrency levels once, on the deployed build; the first requests in fresh processes, builds in turn.
  const stores = [
    {
      label: 'DynamoDB breaker store (dynalite in its own process), as deployed',
      figures: await runProbe(split, 'levels-dynamodb', LEVELS),
    },
    {
      label: 'in-memory breaker store (the handler without its DynamoDB calls)',
      figures: await runProbe(split, 'levels-memory', LEVELS, 'memory'),
    },
  ];
  for (let r = 0; r < RUNS; r++) {
    for (const b of builds) b.runs.push(await runProbe(b.bundle, `first-${r}`, []));
  }

  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  console.log(
    `Bundled API handler, one module instance (a Managed Instances worker thread); Node ${process.version}, ${cpus().length} × ${cpu}; load average ${load} at the start`,
  );
  const call = (calls: (TimedCall | undefined)[]) => {
    const done = calls.filter((c): c is TimedCall => c !== undefined);
    return `${median(done.map((c) => c.wallMs)).toFixed(1)} ms / ${(median(done.map((c) => c.cpuUs)) / 1000).toFixed(1)} ms`;
  };
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;
  console.log(
    `\nModule init and first requests, median of ${RUNS} fresh process${RUNS > 1 ? 'es' : ''} per build (wall / CPU)`,
  );
  console.log(
    table(
      [
        'build',
        'loaded at init',
        'module init',
        'first request (builds the app)',
        'first Anthropic request (its adapter)',
      ],
      builds.map((b) => [
        b.label,
        mb(loadedAtInit(b.bundle.dir).reduce((n, f) => n + statSync(f).size, 0)),
        `${median(b.runs.map((f) => f.initMs)).toFixed(1)} ms`,
        call(b.runs.map((f) => f.first)),
        call(b.runs.map((f) => f.firstLazyFamily)),
      ]),
    ),
  );
  for (const { label, figures } of stores) {
    console.log(
      `\nConcurrent invocations of the deployed build, ${label}: ${INVOCATIONS} per level after ${WARMUP} at 8 in flight; instant upstream`,
    );
    console.log(
      table(
        [
          'in flight',
          'invocations/s',
          'CPU per invocation',
          'of which system',
          'p50',
          'p99',
          'heap peak',
          'not 200',
        ],
        figures.levels.map((l) => [
          String(l.concurrency),
          l.perSecond.toFixed(0),
          `${(l.cpuUsPerInvocation / 1000).toFixed(2)} ms`,
          `${(l.systemUsPerInvocation / 1000).toFixed(2)} ms`,
          `${l.p50Ms.toFixed(1)} ms`,
          `${l.p99Ms.toFixed(1)} ms`,
          `${l.heapPeakMb.toFixed(0)} MB`,
          String(l.failed),
        ]),
      ),
    );
  }
  if (quick)
    console.log('\n--quick: two levels, few invocations: proves the bench runs; read no figure from it.');
} finally {
  await rig.close();
  split.remove();
  eager.remove();
}
