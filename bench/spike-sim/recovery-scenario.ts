/**
 * `npm run bench:spike-sim -- --scenario recovery`: a primary that answers 503 for 60 s and is
 * healthy again, behind a fallback, at a steady 1 request/s per pipeline (issue 28 item 2, the
 * crash-test suite's "recovered primary" row). For each breaker recovery it prints how long after
 * the recovery the primary answered a caller again (the first answer, and the first 10 s in which
 * it answered at least half of the requests), and how many calls went into the outage, with one
 * pipeline and with five (each pipeline has its own breakers; the probe is shared per account route
 * unless a variant says otherwise), and how many of those calls were probes.
 */
import { type BreakerPolicy, DEFAULT_BREAKER_POLICY } from '../../lambda/core/breaker/breaker-policy.js';
import { createBreakers } from '../../lambda/core/breaker/breakers.js';
import { DEFAULT_PROBE_SCHEDULE } from '../../lambda/core/breaker/probe-schedule.js';
import { accountRouteId } from '../../lambda/core/breaker/route-cooling.js';
import { defaultRoutePolicy } from '../../lambda/core/catalog/catalog.js';
import { deriveTimeouts } from '../../lambda/core/catalog/derive-timeouts.js';
import { routeGenerate } from '../../lambda/core/router/route-chat.js';
import type { RouteModel, RouterDeps } from '../../lambda/core/router/route-types.js';
import { latencyFromP95 } from '../../lambda/dev/demo/provider-spec.js';
import { createMemoryBreakerStore } from '../../lambda/stores/memory-breaker-store.js';
import { seededRandom } from '../../lambda/wiring/seeded-random.js';
import { runRecoverySweep } from './recovery-sweep.js';
import { createSimProvider, type SimProviderSpec } from './sim-provider.js';
import { tiersOf } from './strategies.js';
import { VirtualTime } from './virtual-time.js';

const START = Date.UTC(2025, 2, 14, 10, 0, 0);
const OUTAGE_START_MS = 60_000;
const OUTAGE_MS = 60_000;
const RECOVERED_MS = OUTAGE_START_MS + OUTAGE_MS;
const RUN_MS = 10 * 60_000;
/** A share of at least this, over a 10 s bucket, counts as "back on the primary". */
const BACK_SHARE = 0.5;
const BUCKET_MS = 10_000;

const providers = (outageMs: number): SimProviderSpec[] => [
  {
    modelKey: 'primary',
    quotaPerMinute: 100_000,
    burstSeconds: 15,
    latency: latencyFromP95(700, 2_000, 60_000),
    errorLatencyMs: 40,
    outage: { startMs: OUTAGE_START_MS, endMs: OUTAGE_START_MS + outageMs, status: 503 },
  },
  {
    modelKey: 'fallback',
    quotaPerMinute: 100_000,
    burstSeconds: 15,
    latency: latencyFromP95(1_200, 3_000, 60_000),
    errorLatencyMs: 60,
  },
];

export interface Variant {
  name: string;
  policy: BreakerPolicy;
  /**
   * False: the pipelines' models are no account routes, so each pipeline's breaker probes on its
   * own, as before the probe was shared per account route. Default true.
   */
  shared?: boolean;
}

const RAMP: BreakerPolicy = { ...DEFAULT_BREAKER_POLICY, recovery: 'ramp' };
/** The schedule before it was tuned with the shared probe: every 5 s in the first minute. */
const FIVE_SECONDS: BreakerPolicy = {
  ...RAMP,
  probeSchedule: [{ untilMs: 60_000, everyMs: 5_000 }, ...DEFAULT_PROBE_SCHEDULE.slice(1)],
};

/**
 * The recoveries compared: the default `window`; `ramp` with the fixed 30 s slot and with the
 * 5 s schedule, probing per pipeline (before) and shared per account route; the default schedule.
 */
export const RECOVERY_VARIANTS: Variant[] = [
  { name: 'window (default): open openMs', policy: DEFAULT_BREAKER_POLICY },
  { name: 'ramp, fixed 30 s slot, per pipeline', policy: { ...RAMP, probeSchedule: [] }, shared: false },
  { name: 'ramp, 5 s/15 s/60 s, per pipeline', policy: FIVE_SECONDS, shared: false },
  { name: 'ramp, fixed 30 s slot, shared', policy: { ...RAMP, probeSchedule: [] } },
  { name: 'ramp, 5 s/15 s/60 s, shared', policy: FIVE_SECONDS },
  { name: 'ramp, 10 s/15 s/60 s (default), shared', policy: RAMP },
];

export interface RecoveryOutcome {
  name: string;
  pipelines: number;
  /** Ms after the recovery until the primary's first answer to a caller; undefined: never. */
  firstMs: number | undefined;
  /** Ms after the recovery until the start of the first 10 s bucket with a primary share ≥ 50 %. */
  halfMs: number | undefined;
  intoOutage: number;
  /** Attempts into the outage that were probes (ledger `recovery: "probe"`, failed). */
  probesIntoOutage: number;
  failed: number;
}

/** One run: `variant` with `pipelines` pipelines over an outage of `outageMs` from 60 s on. */
export async function simulateRecovery(
  variant: Variant,
  pipelines: number,
  seed: number,
  outageMs = OUTAGE_MS,
): Promise<RecoveryOutcome> {
  const recoveredMs = OUTAGE_START_MS + outageMs;
  const time = new VirtualTime(START);
  const sims = providers(outageMs).map((spec, i) =>
    createSimProvider(spec, time, START, seededRandom(seed * 100 + i)),
  );
  const routes = new Map<string, RouteModel>(
    sims.map((s) => [
      s.model.key,
      { model: s.model, timeouts: deriveTimeouts('bench', { timeoutMs: 10_000 }) },
    ]),
  );
  let probesIntoOutage = 0;
  const deps: RouterDeps = {
    clock: time,
    random: seededRandom(seed),
    sleep: time.sleep,
    breakers: createBreakers({
      store: createMemoryBreakerStore(),
      clock: time,
      policyFor: () => variant.policy,
      // Every pipeline calls the same two upstreams: one account route per model, as a real config has.
      routeCooling: {
        accountRouteOf: (key) => (variant.shared === false ? undefined : accountRouteId('sim', key)),
        coolMs: 5_000,
        readCacheMs: 1_000,
      },
    }),
    models: (key) => routes.get(key),
    ledger: (entry) => {
      if (
        entry.type === 'attempt' &&
        entry.model === 'primary' &&
        entry.recovery === 'probe' &&
        entry.outcome !== 'ok'
      )
        probesIntoOutage++;
    },
  };
  const tiers = tiersOf('primary,fallback');
  const buckets = new Map<number, { primary: number; all: number }>();
  let firstMs: number | undefined;
  let failed = 0;
  for (let t = 0; t < RUN_MS; t += 1_000) {
    for (let p = 0; p < pipelines; p++) {
      const at = t + Math.floor((p * 1_000) / pipelines);
      time.at(START + at, () => {
        routeGenerate(
          {
            requestId: `r-${at}-${p}`,
            pipeline: `pipeline-${p}`,
            tiers,
            policy: defaultRoutePolicy(),
            stream: false,
          },
          deps,
          { messages: [{ role: 'user', content: 'hi' }] },
        ).then((result) => {
          if (!result.ok) failed++;
          const bucket = Math.floor(at / BUCKET_MS) * BUCKET_MS;
          const counts = buckets.get(bucket) ?? { primary: 0, all: 0 };
          counts.all++;
          if (result.ok && result.model === 'primary') {
            counts.primary++;
            if (at >= recoveredMs && firstMs === undefined) firstMs = at - recoveredMs;
          }
          buckets.set(bucket, counts);
        });
      });
    }
  }
  await time.run(START + RUN_MS + 60_000);
  const half = [...buckets]
    .filter(([start, c]) => start >= recoveredMs && c.primary / c.all >= BACK_SHARE)
    .map(([start]) => start)
    .sort((a, b) => a - b)[0];
  return {
    name: variant.name,
    pipelines,
    firstMs,
    halfMs: half === undefined ? undefined : half - recoveredMs,
    intoOutage: sims[0]?.stats.outage ?? 0,
    probesIntoOutage,
    failed,
  };
}

/** Rows as aligned text: the first column left, the others right. */
export function alignTable(all: readonly string[][]): string[] {
  const widths = (all[0] ?? []).map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all.map((r) =>
    r.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  '),
  );
}

export const seconds = (ms: number | undefined) =>
  ms === undefined ? 'never (10 min)' : `${(ms / 1000).toFixed(0)} s`;

/** Runs every variant with one and with five pipelines; returns the printed lines. */
export async function runRecoveryScenario(seed: number): Promise<string[]> {
  const outcomes: RecoveryOutcome[] = [];
  for (const pipelines of [1, 5]) {
    for (const variant of RECOVERY_VARIANTS) outcomes.push(await simulateRecovery(variant, pipelines, seed));
  }
  const header = [
    'recovery',
    'pipelines',
    'primary answers again',
    'primary ≥ 50 % again',
    'calls into the outage',
    'probes into the outage',
    'failed requests',
  ];
  const rows = outcomes.map((o) => [
    o.name,
    String(o.pipelines),
    seconds(o.firstMs),
    seconds(o.halfMs),
    String(o.intoOutage),
    String(o.probesIntoOutage),
    String(o.failed),
  ]);
  const table = alignTable([header, ...rows]);
  return [
    `spike-sim recovery: primary,fallback; 1 request/s per pipeline for 10 min (virtual); the primary answers 503 from ${OUTAGE_START_MS / 1000} s to ${RECOVERED_MS / 1000} s, then is healthy`,
    `times count from the recovery (${RECOVERED_MS / 1000} s); "≥ 50 %": the first 10 s bucket in which the primary answered at least half of the requests`,
    '',
    ...table,
    '',
    ...(await runRecoverySweep(seed)),
  ];
}
