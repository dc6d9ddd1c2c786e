/**
 * The numbers of one demo run, computed once from what the callers saw (the driver's records),
 * what the upstreams answered and when breakers opened. The summary and the report both print
 * from here, so they never disagree.
 */
import type { LedgerEntry } from '../../core/ledger/ledger-entry.js';
import type { BreakerInterval } from './breaker-timeline.js';
import { type DemoScenario, quotaPerSecond } from './demo-scenario.js';
import type { CallRecord } from './load-driver.js';
import { type OutageRecovery, outageRecoveries } from './outage-recovery.js';
import type { ProviderCounts, SimulatedProvider } from './simulated-provider.js';

/** Latency percentiles in ms (nearest rank). */
export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
}

/** Counts for one phase, or for the whole run. */
export interface PhaseStats {
  name: string;
  label: string;
  /** Requests sent. */
  requests: number;
  /** Requests answered 200. */
  ok: number;
  /** Requests answered with an error, or not answered: what users would have seen. */
  errors: number;
  /** Requests cut when the run ended before their answer (a stopped run): neither ok nor errors. */
  cut: number;
  /** Successes by serving tier (index 0 = tier 1). */
  byTier: number[];
  /** Upstream attempts. */
  attempts: number;
  /** Upstream 429s on the routes of these requests. */
  upstream429: number;
  /** Upstream 429s inside requests that succeeded: absorbed, never seen by the caller. */
  absorbed429: number;
  /** Latency of the successful requests, as callers measured it; absent without any. */
  latency: Percentiles | undefined;
}

/** One slice of the timeline (charts). */
export interface TimeBin {
  /** Ms after the start. */
  startMs: number;
  /** Successes by serving tier (index 0 = tier 1), by send time. */
  byTier: number[];
  errors: number;
  absorbed429: number;
  /** Other failed upstream attempts (5xx, timeouts) inside requests that succeeded. */
  absorbedOther: number;
  /** Upstream 429s in requests that failed anyway. */
  reached429: number;
}

/** What one simulated upstream did. */
export interface ProviderStats {
  provider: string;
  modelKey: string;
  tier: number;
  /** Quota at demo speed, requests per second. */
  quotaPerSecond: number;
  counts: ProviderCounts;
}

export interface DemoStats {
  /** Planned length of the load, ms. */
  durationMs: number;
  phases: PhaseStats[];
  total: PhaseStats;
  /** Latency per serving tier, over the whole run. */
  tiers: { tier: number; models: string[]; served: number; latency: Percentiles | undefined }[];
  /** Width of a timeline bin, ms. */
  binMs: number;
  bins: TimeBin[];
  /** Every breaker opening, in order. */
  openings: BreakerInterval[];
  /** Probing and ramp intervals of `ramp` breakers (docs/concepts.md#breaker-recovery), in order. */
  recovery: BreakerInterval[];
  providers: ProviderStats[];
  /** Each provider outage and how fast callers were back on the provider after it. */
  outages: OutageRecovery[];
  /** Requests not sent (too many in flight, or overdue after a stall): the machine was too slow. */
  shed: number;
  /** Requests cut at the end of the run without an answer. */
  cut: number;
  /**
   * p99 event-loop delay of the demo process in ms: callers, gateway and upstreams share one
   * process, so a busy machine shows up here (and in every latency) first.
   */
  loopDelayP99Ms: number;
  /** Longest event-loop delay in ms: one long stall turns answers that already came into timeouts. */
  loopDelayMaxMs: number;
}

/** Nearest-rank percentiles of unsorted samples; `undefined` when there are none. */
export function percentiles(samples: readonly number[]): Percentiles | undefined {
  if (samples.length === 0) return undefined;
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? 0;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

/** Number of serving tiers in the demo chain. */
export function tierCount(scenario: DemoScenario): number {
  return Math.max(...scenario.providers.map((p) => p.tier));
}

function phaseStats(name: string, label: string, records: readonly CallRecord[], tiers: number): PhaseStats {
  const stats: PhaseStats = {
    name,
    label,
    requests: records.length,
    ok: 0,
    errors: 0,
    cut: 0,
    byTier: new Array<number>(tiers).fill(0),
    attempts: 0,
    upstream429: 0,
    absorbed429: 0,
    latency: undefined,
  };
  const latencies: number[] = [];
  for (const r of records) {
    stats.attempts += r.attempts;
    stats.upstream429 += r.upstream429;
    if (r.cut) {
      stats.cut++;
      continue;
    }
    if (r.status !== 200) {
      stats.errors++;
      continue;
    }
    stats.ok++;
    stats.absorbed429 += r.upstream429;
    latencies.push(r.latencyMs);
    if (r.tier !== undefined) stats.byTier[r.tier - 1] = (stats.byTier[r.tier - 1] ?? 0) + 1;
  }
  stats.latency = percentiles(latencies);
  return stats;
}

/** Everything the summary and the report show. */
export function computeStats(input: {
  scenario: DemoScenario;
  records: readonly CallRecord[];
  /** Every breaker interval: openings, probing, ramps. */
  openings: readonly BreakerInterval[];
  providers: readonly SimulatedProvider[];
  shed: number;
  loopDelayP99Ms: number;
  /** Longest event-loop delay in ms: one long stall turns answers that already came into timeouts. */
  loopDelayMaxMs: number;
  /** The gateway's ledger lines: probes into an outage are counted from them. */
  ledger?: readonly LedgerEntry[] | undefined;
}): DemoStats {
  const { scenario, records } = input;
  const tiers = tierCount(scenario);
  const durationMs = scenario.seconds * 1000;
  // About 60 bars whatever the length: one per second in the default run.
  const binMs = Math.max(100, Math.round(durationMs / 60));
  const bins: TimeBin[] = Array.from({ length: Math.ceil(durationMs / binMs) }, (_, i) => ({
    startMs: i * binMs,
    byTier: new Array<number>(tiers).fill(0),
    errors: 0,
    absorbed429: 0,
    absorbedOther: 0,
    reached429: 0,
  }));
  for (const r of records) {
    const bin = bins[Math.min(bins.length - 1, Math.floor(r.sentMs / binMs))];
    if (!bin) continue;
    if (r.status === 200) {
      bin.absorbed429 += r.upstream429;
      bin.absorbedOther += Math.max(0, r.attempts - 1 - r.upstream429);
      if (r.tier !== undefined) bin.byTier[r.tier - 1] = (bin.byTier[r.tier - 1] ?? 0) + 1;
    } else if (!r.cut) {
      bin.errors++;
      bin.reached429 += r.upstream429;
    }
  }
  return {
    durationMs,
    phases: scenario.phases.map((p, i) =>
      phaseStats(
        p.name,
        p.label,
        records.filter((r) => r.phase === i),
        tiers,
      ),
    ),
    total: phaseStats('total', 'the whole run', records, tiers),
    tiers: Array.from({ length: tiers }, (_, i) => {
      const served = records.filter((r) => r.status === 200 && r.tier === i + 1);
      return {
        tier: i + 1,
        models: scenario.providers.filter((p) => p.tier === i + 1).map((p) => p.modelKey),
        served: served.length,
        latency: percentiles(served.map((r) => r.latencyMs)),
      };
    }),
    binMs,
    bins,
    openings: [...input.openings].filter((i) => i.phase === 'open').sort((a, b) => a.startMs - b.startMs),
    recovery: [...input.openings].filter((i) => i.phase !== 'open').sort((a, b) => a.startMs - b.startMs),
    providers: input.providers.map((p) => ({
      provider: p.spec.provider,
      modelKey: p.spec.modelKey,
      tier: p.spec.tier,
      quotaPerSecond: quotaPerSecond(scenario, p.spec),
      counts: { ...p.counts },
    })),
    outages: outageRecoveries(scenario, records, input.ledger ?? []),
    shed: input.shed,
    cut: records.filter((r) => r.cut).length,
    loopDelayP99Ms: input.loopDelayP99Ms,
    loopDelayMaxMs: input.loopDelayMaxMs,
  };
}
