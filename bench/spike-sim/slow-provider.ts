/**
 * `npm run bench:spike-sim:slow`: one provider slows tenfold without failing. Steady traffic on
 * `(officialA|officialB),aggregator` for 20 virtual minutes; from minute 5 to minute 15 officialB
 * answers ten times slower (median 800 ms → 8 s), always successfully (attempt timeout and
 * deadline 30 s, so nothing times out). The real attempt loop runs per selection strategy on the
 * same arrivals and seeds, once without and once with a bulkhead on every provider
 * (`capacity.providers.<p>.maxInFlight`, docs/concepts.md#bulkheads). The first table shows, per
 * provider, answer share during the slowdown, p50/p95 latency and in-flight peak without and with
 * the bulkhead; the second what the bulkhead cost the slowdown's requests (routes found full,
 * answers from the next tier, 503 `capacity_exhausted`, p50/p95).
 *
 *   tsx bench/spike-sim/slow-provider.ts [--seed 0] [--max-in-flight 30]
 */
import { parseArgs } from 'node:util';
import { DEFAULT_BREAKER_POLICY } from '../../lambda/core/breaker/breaker-policy.js';
import { createBreakers } from '../../lambda/core/breaker/breakers.js';
import { createRouteCapacity } from '../../lambda/core/capacity/create-route-capacity.js';
import { createMemoryInFlight } from '../../lambda/core/capacity/in-flight.js';
import type { RouteCapacity } from '../../lambda/core/capacity/route-capacity.js';
import { capacitySchema } from '../../lambda/core/catalog/capacity-config-schema.js';
import { defaultRoutePolicy } from '../../lambda/core/catalog/catalog.js';
import { deriveTimeouts } from '../../lambda/core/catalog/derive-timeouts.js';
import type { SelectionSettings } from '../../lambda/core/catalog/selection-config-schema.js';
import type { CallOptions, ChatModel, ChatResult } from '../../lambda/core/chat/chat-model.js';
import { routeGenerate } from '../../lambda/core/router/route-chat.js';
import { createRouteSignals } from '../../lambda/core/router/route-signals.js';
import type { RouteModel, RoutePolicy, RouterDeps } from '../../lambda/core/router/route-types.js';
import type { Random } from '../../lambda/core/time.js';
import { type LatencySpec, latencyFromP95, sampleLatency } from '../../lambda/dev/demo/provider-spec.js';
import { createMemoryAdmissionStore } from '../../lambda/stores/memory-admission-store.js';
import { createMemoryBreakerStore } from '../../lambda/stores/memory-breaker-store.js';
import { seededRandom } from '../../lambda/wiring/seeded-random.js';
import {
  costTable,
  type Outcome,
  type ProviderSeen,
  providerTable,
  type StrategyRuns,
} from './slow-provider-table.js';
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

/** The selection strategies compared; each runs once without and once with a bulkhead on every provider. */
const STRATEGIES: readonly SelectionSettings[] = [{ strategy: 'weighted' }, { strategy: 'adaptive' }];

/**
 * The bulkhead of the bulkhead runs, `capacity.providers.<p>.maxInFlight` on each provider: the
 * healthy in-flight peak of one official provider at an even split (20 at 20 req/s and ~0.9 s mean
 * latency, printed by each run as "healthy peak") with 50 % headroom. That is also about the peak
 * of one provider carrying the whole first tier (29 under `adaptive`), so a healthy provider that
 * takes over from its slowed peer is not refused: only the pile-up on the slowed one is.
 */
const DEFAULT_MAX_IN_FLIGHT = 30;

/**
 * The limits of the cost table: the chosen one, then the healthy peak without headroom and
 * three quarters of it, to show what a bulkhead set too tight costs.
 */
const DEFAULT_LIMITS = [DEFAULT_MAX_IN_FLIGHT, 20, 15] as const;

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
      if (offset < SLOW.startMs) seen.healthyPeak = Math.max(seen.healthyPeak, seen.inFlight);
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

function arrivals(random: Random): number[] {
  const out: number[] = [];
  for (let t = 0; t < DURATION_MS; ) {
    t += (-Math.log(Math.max(random(), Number.EPSILON)) / RATE_PER_S) * 1_000;
    if (t < DURATION_MS) out.push(t);
  }
  return out;
}

/** `maxInFlight` on every provider of the scenario, as the gateway builds it from `capacity.providers`. */
function bulkheads(limit: number, time: VirtualTime): RouteCapacity {
  const providers = Object.fromEntries(Object.keys(LATENCY).map((key) => [key, { maxInFlight: limit }]));
  const settings = capacitySchema.parse({ providers });
  return createRouteCapacity({
    settings,
    clock: time,
    inFlight: createMemoryInFlight(settings.leaseMs),
    quotaStore: createMemoryAdmissionStore(time),
    // Each simulated provider serves one model of its own name.
    routeOf: (key) => ({ provider: key, model: key }),
  });
}

/** Routes skipped at their bulkhead in a trail (`!officialB:full,officialA:200`). */
function fullIn(trail: string): string[] {
  return trail
    .split(',')
    .filter((step) => step.startsWith('!') && step.endsWith(':full'))
    .map((step) => step.slice(1, -':full'.length));
}

async function simulate(
  selection: SelectionSettings,
  bulkhead: number | undefined,
  times: readonly number[],
  seed: number,
): Promise<Outcome> {
  const time = new VirtualTime(START);
  const seen = new Map<string, ProviderSeen>();
  const routes = new Map<string, RouteModel>();
  for (const [i, key] of Object.keys(LATENCY).entries()) {
    const s: ProviderSeen = { latencies: [], inFlight: 0, peak: 0, healthyPeak: 0, refusedFull: 0 };
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
    capacity: bulkhead === undefined ? undefined : bulkheads(bulkhead, time),
  };
  const policy: RoutePolicy = { ...defaultRoutePolicy(), deadlineMs: TIMEOUT_MS, selection };
  const tiers = tiersOf(CHAIN);
  const outcome: Outcome = {
    strategy: selection.strategy,
    bulkhead,
    slowWindow: [],
    seen,
    windowShare: new Map(),
    window: { requests: 0, metFull: 0, capacityExhausted: 0, otherFailures: 0 },
  };
  times.forEach((at, i) => {
    time.at(START + at, () => {
      const request = { requestId: `r${i}`, pipeline: 'p', tiers, policy, stream: false };
      routeGenerate(request, deps, { messages: [{ role: 'user', content: 'hi' }] }).then((result) => {
        const latency = time.now() - START - at;
        const inWindow = at >= SLOW.startMs && at < SLOW.endMs;
        const full = fullIn(result.route);
        for (const key of full) {
          const provider = seen.get(key);
          if (provider) provider.refusedFull++;
        }
        if (inWindow) {
          outcome.window.requests++;
          if (full.length > 0) outcome.window.metFull++;
        }
        if (!result.ok) {
          // No attempt fails in this scenario: a failure is every route full (503 capacity_exhausted).
          if (inWindow && result.capacity?.reason === 'full') outcome.window.capacityExhausted++;
          else if (inWindow) outcome.window.otherFailures++;
          return;
        }
        seen.get(result.model)?.latencies.push(latency);
        if (inWindow) {
          outcome.slowWindow.push(latency);
          outcome.windowShare.set(result.model, (outcome.windowShare.get(result.model) ?? 0) + 1);
        }
      });
    });
  });
  await time.run(START + DURATION_MS + 120_000);
  return outcome;
}

/** `--max-in-flight`: positive integers, comma-separated; a clear error naming the option otherwise. */
function parseLimits(value: string): [number, ...number[]] {
  const limits = value.split(',').map(Number);
  if (!limits.every((n) => Number.isInteger(n) && n >= 1))
    throw new Error('--max-in-flight must be positive integers, comma-separated (e.g. 30,20,15)');
  return limits as [number, ...number[]];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string', default: '0' },
      'max-in-flight': { type: 'string', default: DEFAULT_LIMITS.join(',') },
    },
  });
  const seed = Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0) throw new Error('--seed must be a non-negative integer');
  const limits = parseLimits(values['max-in-flight']);
  const started = performance.now();
  const times = arrivals(seededRandom(seed));
  const runs: StrategyRuns[] = [];
  for (const selection of STRATEGIES) {
    const without = await simulate(selection, undefined, times, seed);
    const bounded: Outcome[] = [];
    for (const limit of limits) bounded.push(await simulate(selection, limit, times, seed));
    runs.push({ without, bounded: bounded as [Outcome, ...Outcome[]] });
  }
  // The first tier's providers, as they ran under `weighted` without a bulkhead before the slowdown.
  const firstTier = tiersOf(CHAIN)[0]?.members.map((m) => m.key) ?? [];
  const healthy = firstTier
    .map((key) => `${key} ${runs[0]?.without.seen.get(key)?.healthyPeak ?? 0}`)
    .join(', ');
  const lines = [
    `spike-sim slow provider: ${CHAIN}, ${times.length.toLocaleString('en-US')} requests over 20 virtual minutes (~${RATE_PER_S} req/s, seed ${seed})`,
    `${SLOW.provider} answers ${SLOW.factor}× slower (median 800 ms → 8 s, never failing) from minute 5 to 15; attempt timeout and deadline ${TIMEOUT_MS / 1000} s`,
    `bulkhead: capacity.providers.<p>.maxInFlight ${limits[0]} on each provider (healthy in-flight peak before the slowdown, weighted: ${healthy})`,
    'share: answers to requests that arrived during the slowdown; p50/p95: latency of the requests each provider answered (whole run); in-flight peak: most calls open at once on the provider; refused full: attempts its bulkhead refused',
    '',
    providerTable(runs),
    '',
    `what a bulkhead costs, requests that arrived during the slowdown (${runs[0]?.without.window.requests.toLocaleString('en-US')}; p50/p95 of the answered ones; in-flight peaks: whole run):`,
    '',
    costTable(runs, 'aggregator'),
    '',
    `(${runs.length * (1 + limits.length)} runs in ${((performance.now() - started) / 1000).toFixed(1)} s)`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench:spike-sim:slow failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exitCode = 1;
});
