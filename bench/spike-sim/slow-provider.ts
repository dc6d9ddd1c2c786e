/**
 * `npm run bench:spike-sim:slow`: one provider slows tenfold without failing. Steady traffic on
 * `(officialA|officialB),aggregator` for 20 virtual minutes; from minute 5 to minute 15 officialB
 * answers ten times slower (median 800 ms → 8 s), always successfully (attempt timeout and
 * deadline 30 s, so nothing times out). The real attempt loop runs once per selection strategy on
 * the same arrivals and seeds, and the table shows, for requests that arrived during the slowdown,
 * p50/p95 latency and answer share per provider, and each provider's in-flight peak.
 *
 *   tsx bench/spike-sim/slow-provider.ts [--seed 0]
 */
import { parseArgs } from 'node:util';
import { DEFAULT_BREAKER_POLICY } from '../../lambda/core/breaker/breaker-policy.js';
import { createBreakers } from '../../lambda/core/breaker/breakers.js';
import { DEFAULT_ROUTE_POLICY } from '../../lambda/core/catalog/catalog.js';
import { deriveTimeouts } from '../../lambda/core/catalog/derive-timeouts.js';
import type { SelectionSettings } from '../../lambda/core/catalog/selection-config-schema.js';
import type { CallOptions, ChatModel, ChatResult } from '../../lambda/core/chat/chat-model.js';
import { routeGenerate } from '../../lambda/core/router/route-chat.js';
import { createRouteSignals } from '../../lambda/core/router/route-signals.js';
import type { RouteModel, RoutePolicy, RouterDeps } from '../../lambda/core/router/route-types.js';
import type { Random } from '../../lambda/core/time.js';
import { type LatencySpec, latencyFromP95, sampleLatency } from '../../lambda/dev/demo/provider-spec.js';
import { createMemoryBreakerStore } from '../../lambda/stores/memory-breaker-store.js';
import { seededRandom } from '../../lambda/wiring/seeded-random.js';
import { tiersOf } from './strategies.js';
import { VirtualTime } from './virtual-time.js';

const CHAIN = '(officialA|officialB),aggregator';
const START = Date.UTC(2025, 2, 14, 10, 0, 0);
const DURATION_MS = 20 * 60_000;
const SLOW = { startMs: 5 * 60_000, endMs: 15 * 60_000, factor: 10, provider: 'officialB' };
/** Arrivals per second (Poisson). */
const RATE_PER_S = 20;
/** Long enough that the slowed provider never times out: it slows, it does not fail. */
const TIMEOUT_MS = 30_000;

const LATENCY: Record<string, LatencySpec> = {
  officialA: latencyFromP95(700, 1_400, 20_000),
  officialB: latencyFromP95(800, 1_500, 20_000),
  aggregator: latencyFromP95(1_200, 2_500, 20_000),
};

/**
 * Where the bulkhead rows go once `maxInFlight` (issue 29 item 2, branch w-recovery) is merged:
 * add `{ name: 'weighted + bulkhead', selection: { strategy: 'weighted' }, bulkhead: N }` (and
 * the same for adaptive) and pass the limit to the router's deps in `simulate`; the table's
 * "in-flight peak" column then shows the peak with the bulkhead. Until then no row claims one.
 */
interface Row {
  name: string;
  selection: SelectionSettings;
  /** `maxInFlight` per provider; undefined: no bulkhead (the only kind this branch can run). */
  bulkhead?: number | undefined;
}

const ROWS: readonly Row[] = [
  { name: 'weighted', selection: { strategy: 'weighted' } },
  { name: 'adaptive', selection: { strategy: 'adaptive' } },
];

/** What one provider saw. */
interface ProviderSeen {
  latencies: number[];
  inFlight: number;
  peak: number;
  answered: number;
}

/** A provider on the virtual clock: lognormal latency, ten times it inside the slow window; never fails. */
function simModel(key: string, time: VirtualTime, random: Random, seen: ProviderSeen): ChatModel {
  return {
    key,
    provider: key,
    async generate(_request, options: CallOptions): Promise<ChatResult> {
      const offset = time.now() - START;
      const slowed = key === SLOW.provider && offset >= SLOW.startMs && offset < SLOW.endMs;
      const latency = sampleLatency(LATENCY[key] as LatencySpec, random) * (slowed ? SLOW.factor : 1);
      seen.inFlight++;
      seen.peak = Math.max(seen.peak, seen.inFlight);
      try {
        await time.sleep(latency, options.signal);
      } finally {
        seen.inFlight--;
      }
      return {
        content: 'ok',
        toolCalls: [],
        finishReason: 'stop',
        usage: { inputTokens: 200, outputTokens: 50 },
      };
    },
    // biome-ignore lint/correctness/useYield: the simulation only sends plain requests
    async *stream() {
      throw new Error('the simulation does not stream');
    },
  };
}

interface Outcome {
  row: Row;
  /** Request latencies (ms) of requests that arrived during the slowdown. */
  slowWindow: number[];
  all: number[];
  seen: Map<string, ProviderSeen>;
  /** Answers per provider for requests that arrived during the slowdown. */
  windowShare: Map<string, number>;
}

function arrivals(random: Random): number[] {
  const out: number[] = [];
  for (let t = 0; t < DURATION_MS; ) {
    t += (-Math.log(Math.max(random(), Number.EPSILON)) / RATE_PER_S) * 1_000;
    if (t < DURATION_MS) out.push(t);
  }
  return out;
}

async function simulate(row: Row, times: readonly number[], seed: number): Promise<Outcome> {
  const time = new VirtualTime(START);
  const seen = new Map<string, ProviderSeen>();
  const routes = new Map<string, RouteModel>();
  for (const [i, key] of Object.keys(LATENCY).entries()) {
    const s: ProviderSeen = { latencies: [], inFlight: 0, peak: 0, answered: 0 };
    seen.set(key, s);
    const model = simModel(key, time, seededRandom(seed * 1_000 + 11 + i), s);
    routes.set(key, { model, timeouts: deriveTimeouts('bench', { timeoutMs: TIMEOUT_MS }) });
  }
  const deps: RouterDeps = {
    clock: time,
    random: seededRandom(seed * 1_000 + 7),
    sleep: time.sleep,
    breakers: createBreakers({
      store: createMemoryBreakerStore(),
      clock: time,
      policyFor: () => DEFAULT_BREAKER_POLICY,
    }),
    models: (key) => routes.get(key),
    ledger: () => {},
    // One container serves the whole trace: its signals are what `adaptive` reads.
    signals: createRouteSignals(() => time.now()),
  };
  const policy: RoutePolicy = { ...DEFAULT_ROUTE_POLICY, deadlineMs: TIMEOUT_MS, selection: row.selection };
  const tiers = tiersOf(CHAIN);
  const outcome: Outcome = { row, slowWindow: [], all: [], seen, windowShare: new Map() };
  times.forEach((at, i) => {
    time.at(START + at, () => {
      const request = { requestId: `r${i}`, pipeline: 'p', tiers, policy, stream: false };
      routeGenerate(request, deps, { messages: [{ role: 'user', content: 'hi' }] }).then((result) => {
        const latency = time.now() - START - at;
        outcome.all.push(latency);
        if (!result.ok) return;
        const provider = seen.get(result.model);
        provider?.latencies.push(latency);
        if (provider) provider.answered++;
        if (at >= SLOW.startMs && at < SLOW.endMs) {
          outcome.slowWindow.push(latency);
          outcome.windowShare.set(result.model, (outcome.windowShare.get(result.model) ?? 0) + 1);
        }
      });
    });
  });
  await time.run(START + DURATION_MS + 120_000);
  return outcome;
}

/** The q-quantile in whole ms, or `—` when nothing was measured. */
function quantile(values: readonly number[], q: number): string {
  const sorted = [...values].sort((a, b) => a - b);
  const value = sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  return value === undefined ? '—' : value.toFixed(0);
}

function table(outcomes: readonly Outcome[]): string {
  const header = [
    'strategy',
    'provider',
    'share (slowdown)',
    'p50 ms',
    'p95 ms',
    'in-flight peak',
    'in-flight peak, bulkhead',
  ];
  const rows: string[][] = [];
  for (const o of outcomes) {
    const windowTotal = o.slowWindow.length;
    for (const [key, s] of o.seen) {
      rows.push([
        o.row.name,
        key,
        `${((100 * (o.windowShare.get(key) ?? 0)) / Math.max(1, windowTotal)).toFixed(1)} %`,
        quantile(s.latencies, 0.5),
        quantile(s.latencies, 0.95),
        String(s.peak),
        // Filled by a bulkhead row (see ROWS) once maxInFlight is merged.
        o.row.bulkhead === undefined ? '—' : String(s.peak),
      ]);
    }
    rows.push([
      o.row.name,
      'all requests (slowdown)',
      '100 %',
      quantile(o.slowWindow, 0.5),
      quantile(o.slowWindow, 0.95),
      '',
      '',
    ]);
  }
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all
    .map((r) => r.map((c, i) => (i < 2 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  '))
    .join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { seed: { type: 'string', default: '0' } } });
  const seed = Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0) throw new Error('--seed must be a non-negative integer');
  const started = performance.now();
  const times = arrivals(seededRandom(seed));
  const outcomes: Outcome[] = [];
  for (const row of ROWS) outcomes.push(await simulate(row, times, seed));
  const lines = [
    `spike-sim slow provider: ${CHAIN}, ${times.length.toLocaleString('en-US')} requests over 20 virtual minutes (~${RATE_PER_S} req/s, seed ${seed})`,
    `${SLOW.provider} answers ${SLOW.factor}× slower (median 800 ms → 8 s, never failing) from minute 5 to 15; attempt timeout and deadline ${TIMEOUT_MS / 1000} s`,
    'share: answers to requests that arrived during the slowdown; p50/p95: latency of the requests each provider answered (whole run); in-flight peak: most calls open at once on the provider',
    '',
    table(outcomes),
    '',
    `(${outcomes.length} strategies in ${((performance.now() - started) / 1000).toFixed(1)} s)`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench:spike-sim:slow failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exitCode = 1;
});
