/**
 * One Managed Instances worker thread of the API Lambda, in its own process: installs the
 * runtime's streaming globals and its multi-concurrent InvokeStore (the tests' stand-ins), imports
 * the bundle once (module init), then sends the first request (which builds the app and loads what
 * it needs lazily), the first request on a lazily loaded family, a warm-up, and for each
 * concurrency level N the same number of invocations with N always in flight. Writes the figures
 * as JSON to PROBE_OUT. `run.ts` bundles this file, so no TypeScript loader runs in the process.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import {
  installLambdaStreamingRuntime,
  invokeStreaming,
  lambdaContext,
} from '../../test/helpers/lambda-runtime.js';
import { installInvokeStore } from '../../test/helpers/managed-instances-runtime.js';

/** One timed call: wall ms and CPU µs of the whole process while it ran (nothing else runs). */
export interface TimedCall {
  wallMs: number;
  cpuUs: number;
  status: number;
}

/** One concurrency level's figures. */
export interface LevelFigures {
  concurrency: number;
  invocations: number;
  /** Invocations that did not answer 200. */
  failed: number;
  perSecond: number;
  cpuUsPerInvocation: number;
  /** The part of it spent in the kernel (system calls: socket writes and reads), µs. */
  systemUsPerInvocation: number;
  p50Ms: number;
  p99Ms: number;
  /** V8 heap in use, MB: the most seen while the level ran (sampled every 50 ms). */
  heapPeakMb: number;
}

/** What the probe writes. */
export interface ProbeFigures {
  initMs: number;
  first: TimedCall;
  firstLazyFamily: TimedCall | undefined;
  levels: LevelFigures[];
  /** When the first level started, µs of the monotonic clock (a CPU profile's time base). */
  levelsFromUs: number;
}

const env = process.env;
const event = JSON.parse(readFileSync(String(env.PROBE_EVENT), 'utf8')) as unknown;
const lazyEvent = env.PROBE_LAZY_EVENT
  ? (JSON.parse(readFileSync(env.PROBE_LAZY_EVENT, 'utf8')) as unknown)
  : undefined;
const levels = String(env.PROBE_LEVELS ?? '')
  .split(',')
  .filter(Boolean)
  .map(Number);
const perLevel = Number(env.PROBE_INVOCATIONS);
const warmup = Number(env.PROBE_WARMUP);

installLambdaStreamingRuntime();
const scope = installInvokeStore();
const t0 = performance.now();
const { handler } = (await import(String(env.PROBE_BUNDLE))) as { handler: unknown };
const initMs = performance.now() - t0;

async function invoke(body: unknown): Promise<number> {
  const context = lambdaContext();
  const res = await scope(context, () => invokeStreaming(handler, structuredClone(body), { context }));
  return res.statusCode;
}

async function timed(body: unknown): Promise<TimedCall> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const status = await invoke(body);
  const used = process.cpuUsage(cpu);
  return { wallMs: performance.now() - start, cpuUs: used.user + used.system, status };
}

/** `total` invocations with `concurrency` in flight at every moment (a closed loop per slot). */
async function level(concurrency: number, total: number): Promise<LevelFigures> {
  const latencies: number[] = [];
  let failed = 0;
  let started = 0;
  const heap = () => getHeapStatistics().used_heap_size;
  let heapPeak = heap();
  const sampler = setInterval(() => {
    heapPeak = Math.max(heapPeak, heap());
  }, 50);
  const cpu = process.cpuUsage();
  const start = performance.now();
  const slot = async () => {
    while (started < total) {
      started += 1;
      const t = performance.now();
      if ((await invoke(event)) !== 200) failed += 1;
      latencies.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, slot));
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  clearInterval(sampler);
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
  return {
    concurrency,
    invocations: total,
    failed,
    perSecond: (total / wallMs) * 1000,
    cpuUsPerInvocation: (used.user + used.system) / total,
    systemUsPerInvocation: used.system / total,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    heapPeakMb: Math.max(heapPeak, heap()) / 1024 / 1024,
  };
}

const first = await timed(event);
const firstLazyFamily = lazyEvent === undefined ? undefined : await timed(lazyEvent);
if (warmup > 0) await level(8, warmup);
const figures: LevelFigures[] = [];
const levelsFromUs = Number(process.hrtime.bigint() / 1000n);
for (const concurrency of levels) figures.push(await level(concurrency, perLevel));
const out: ProbeFigures = { initMs, first, firstLazyFamily, levels: figures, levelsFromUs };
writeFileSync(String(env.PROBE_OUT), JSON.stringify(out));
process.exit(0);
