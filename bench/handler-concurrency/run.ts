/**
 * bench/handler-concurrency: the bundled API handler as one Lambda Managed Instances worker thread
 * runs it — one module instance, many invocations at once (issue 30 item 1). The bundle is built
 * with `cdk synth`'s esbuild options, imported once in a fresh process with the runtime's
 * multi-concurrent InvokeStore, and driven with API Gateway events at 1, 8, 32 and 64 in flight
 * against the overhead bench's instant upstream, with the breaker table in dynalite (its own
 * process) and the fake SSM and upstream in this one, so that the CPU measured is the handler's
 * alone. It also times module init and the first requests of the deployed build (chunks loaded on
 * first use) against one eager file: the first request builds the app, the first Anthropic request
 * loads that family's adapter and SDK.
 *
 *   npm run bench:handler-concurrency                  # 1, 8, 32, 64 in flight; 1,000 invocations each; 3 fresh processes per build for the first requests
 *   npm run bench:handler-concurrency -- --quick       # 1 and 8 in flight, 50 invocations, one process per build: proves it runs
 */
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { startFakeAnthropic } from '../../lambda/dev/fakes/anthropic-fake.js';
import { type ApiBundle, bundleApiHandler } from '../../test/helpers/api-bundle.js';
import { loadedAtInit } from '../cold-start/loaded-at-init.js';
import { BENCH_PROVIDER_KEY_PARAMETER, startHandlerEnvironment } from '../cost/handler-environment.js';
import { INSTANT_MODEL, startInstantUpstream } from '../overhead/instant-upstream.js';
import type { ProbeFigures, TimedCall } from './probe.js';

const quick = process.argv.includes('--quick');
const LEVELS = quick ? [1, 8] : [1, 8, 32, 64];
const INVOCATIONS = quick ? 50 : 1000;
const WARMUP = quick ? 20 : 300;
const RUNS = quick ? 1 : 3;
const PROBE_SOURCE = fileURLToPath(new URL('./probe.ts', import.meta.url));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const table = (header: string[], rows: string[][]) => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
};

const load = loadavg()
  .map((l) => l.toFixed(1))
  .join(' ');
const [split, eager, upstream, anthropic] = await Promise.all([
  bundleApiHandler({ splitting: true }),
  bundleApiHandler({ splitting: false }),
  startInstantUpstream(),
  startFakeAnthropic(),
]);
const around = await startHandlerEnvironment({
  providers: {
    fast: {
      type: 'openai',
      baseURL: `http://127.0.0.1:${upstream.port}/v1`,
      apiKeySecret: BENCH_PROVIDER_KEY_PARAMETER,
    },
    an: { type: 'anthropic', baseURL: anthropic.url, apiKeySecret: BENCH_PROVIDER_KEY_PARAMETER },
  },
  models: {
    a: { provider: 'fast', model: INSTANT_MODEL, price: { inputPerMTok: 1, outputPerMTok: 2 } },
    claude: { provider: 'an', model: 'claude-model' },
  },
  // The breaker never opens on the instant upstream; the window is still read and written per attempt.
  pipelines: { p: { chain: 'a' }, c: { chain: 'claude' } },
});
const probe = join(around.dir, 'probe.mjs');
await build({
  entryPoints: [PROBE_SOURCE],
  outfile: probe,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  logLevel: 'warning',
});

function runProbe(bundle: ApiBundle, name: string, levels: number[]): Promise<ProbeFigures> {
  const out = join(around.dir, `${name}.json`);
  const env = {
    ...around.env,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: 'http://127.0.0.1:9',
    // Managed Instances set this; Powertools then keeps each invocation's context apart.
    AWS_LAMBDA_MAX_CONCURRENCY: '64',
    PROBE_BUNDLE: bundle.entry,
    PROBE_EVENT: around.writeEvent('event', { model: 'p', messages: [{ role: 'user', content: 'hi' }] }),
    PROBE_LAZY_EVENT: around.writeEvent('lazy', { model: 'c', messages: [{ role: 'user', content: 'hi' }] }),
    PROBE_LEVELS: levels.join(','),
    PROBE_INVOCATIONS: String(INVOCATIONS),
    PROBE_WARMUP: String(levels.length > 0 ? WARMUP : 0),
    PROBE_OUT: out,
  };
  return new Promise((resolve, reject) => {
    // Its stdout (Powertools log and ledger lines) is discarded, as the runtime ships it elsewhere.
    const child = spawn(process.execPath, [probe], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`probe exited with ${code}: ${stderr.slice(-1500)}`));
      const figures = JSON.parse(readFileSync(out, 'utf8')) as ProbeFigures;
      const bad = [figures.first, figures.firstLazyFamily].find((c) => c && c.status !== 200);
      if (bad) return reject(new Error(`a first request answered ${bad.status}`));
      resolve(figures);
    });
  });
}

try {
  const builds = [
    { label: 'deployed: chunks on first use', bundle: split, runs: [] as ProbeFigures[] },
    { label: 'one eager file', bundle: eager, runs: [] as ProbeFigures[] },
  ];
  // The concurrency levels once, on the deployed build; the first requests in fresh processes, builds in turn.
  const concurrency = await runProbe(split, 'levels', LEVELS);
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
  console.log(
    `\nConcurrent invocations of the deployed build: ${INVOCATIONS} per level after ${WARMUP} at 8 in flight; instant upstream, DynamoDB breaker store (dynalite)`,
  );
  console.log(
    table(
      ['in flight', 'invocations/s', 'CPU per invocation', 'p50', 'p99', 'heap peak', 'not 200'],
      concurrency.levels.map((l) => [
        String(l.concurrency),
        l.perSecond.toFixed(0),
        `${(l.cpuUsPerInvocation / 1000).toFixed(2)} ms`,
        `${l.p50Ms.toFixed(1)} ms`,
        `${l.p99Ms.toFixed(1)} ms`,
        `${l.heapPeakMb.toFixed(0)} MB`,
        String(l.failed),
      ]),
    ),
  );
  if (quick)
    console.log('\n--quick: two levels, few invocations: proves the bench runs; read no figure from it.');
} finally {
  await Promise.all([around.close(), upstream.close(), anthropic.close()]);
  split.remove();
  eager.remove();
}
