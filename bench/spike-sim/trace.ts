/**
 * The traffic the spike simulator replays: a seeded hour of baseline load, demo-day spikes and
 * cron bursts, and a check of whether the providers' total capacity could serve it at all.
 */
import type { Random } from '../../lambda/core/time.js';
import { inOutage } from '../../lambda/dev/demo/provider-spec.js';
import type { SimProviderSpec } from './sim-provider.js';

/** One request of the trace. */
export interface Arrival {
  /** Offset from the start of the trace, in ms. */
  atMs: number;
  pipeline: string;
  kind: 'baseline' | 'demo' | 'cron';
}

/** A demo-day spike: traffic jumps to `factor` × baseline within `rampUpS`, holds, then falls. */
export interface SpikeSpec {
  /** Nominal start, in s from the start of the trace (the seed moves it by up to a minute). */
  startS: number;
  /** Time at full height, in s (the seed adds up to a minute). */
  holdS: number;
}

/** Many pipelines scheduled at the same instant (EventBridge cron), each firing a batch of jobs. */
export interface CronSpec {
  atS: number;
  pipelines: number;
  /** Jobs per pipeline, drawn uniformly from this range. */
  jobs: [number, number];
  /** Pipeline names are `<prefix>-01`, `<prefix>-02`…, so schedules of different bursts can share them. */
  prefix: string;
}

export interface TraceSpec {
  durationS: number;
  /** Mean baseline requests per second (it drifts ±20 % over the hour). */
  baselinePerSecond: number;
  baselinePipelines: readonly string[];
  demoPipeline: string;
  /** Height of a spike as a multiple of the baseline. */
  spikeFactor: number;
  rampUpS: number;
  rampDownS: number;
  spikes: readonly SpikeSpec[];
  cron: readonly CronSpec[];
}

/** A Poisson draw: exact for small means, a rounded normal approximation for large ones. */
function poisson(mean: number, random: Random): number {
  if (mean <= 0) return 0;
  if (mean > 30) {
    const z = Math.sqrt(-2 * Math.log(Math.max(random(), Number.EPSILON))) * Math.cos(2 * Math.PI * random());
    return Math.max(0, Math.round(mean + Math.sqrt(mean) * z));
  }
  const limit = Math.exp(-mean);
  let k = 0;
  for (let p = random(); p > limit; p *= random()) k++;
  return k;
}

/** Height of the spike at second `s`, as a multiple of the baseline (1 outside spikes). */
function spikeHeight(s: number, spikes: readonly { start: number; hold: number }[], spec: TraceSpec): number {
  let height = 1;
  for (const { start, hold } of spikes) {
    const top = spec.spikeFactor;
    if (s < start || s >= start + spec.rampUpS + hold + spec.rampDownS) continue;
    const into = s - start;
    const h =
      into < spec.rampUpS
        ? 1 + ((top - 1) * into) / spec.rampUpS
        : into < spec.rampUpS + hold
          ? top
          : top - ((top - 1) * (into - spec.rampUpS - hold)) / spec.rampDownS;
    height = Math.max(height, h);
  }
  return height;
}

const pad = (n: number) => String(n).padStart(2, '0');
const pick = <T>(items: readonly T[], random: Random): T => items[Math.floor(random() * items.length)] as T;

/** A generated trace and where its spikes and bursts ended up. */
export interface Trace {
  /** Every request, sorted by time. */
  arrivals: Arrival[];
  /** Spikes as placed by the seed: start and time at full height, in s. */
  spikes: { start: number; hold: number }[];
  /** Cron bursts: when, how many pipelines, how many jobs in all. */
  bursts: { atS: number; pipelines: number; jobs: number }[];
}

/** The trace. The same spec and random source give the same trace. */
export function generateTrace(spec: TraceSpec, random: Random): Trace {
  const spikes = spec.spikes.map((s) => ({
    start: s.startS + Math.round((random() - 0.5) * 120),
    hold: s.holdS + Math.round(random() * 60),
  }));
  const arrivals: Arrival[] = [];
  for (let s = 0; s < spec.durationS; s++) {
    const base = spec.baselinePerSecond * (1 + 0.2 * Math.sin((2 * Math.PI * s) / 3600));
    for (let n = poisson(base, random); n > 0; n--) {
      arrivals.push({
        atMs: (s + random()) * 1000,
        pipeline: pick(spec.baselinePipelines, random),
        kind: 'baseline',
      });
    }
    const extra = base * (spikeHeight(s, spikes, spec) - 1);
    for (let n = poisson(extra, random); n > 0; n--) {
      arrivals.push({ atMs: (s + random()) * 1000, pipeline: spec.demoPipeline, kind: 'demo' });
    }
  }
  const bursts: Trace['bursts'] = [];
  for (const burst of spec.cron) {
    let total = 0;
    for (let p = 1; p <= burst.pipelines; p++) {
      const [low, high] = burst.jobs;
      const jobs = low + Math.floor(random() * (high - low + 1));
      total += jobs;
      for (let j = 0; j < jobs; j++) {
        arrivals.push({
          atMs: (burst.atS + random()) * 1000,
          pipeline: `${burst.prefix}-${pad(p)}`,
          kind: 'cron',
        });
      }
    }
    bursts.push({ atS: burst.atS, pipelines: burst.pipelines, jobs: total });
  }
  for (const a of arrivals) a.atMs = Math.floor(a.atMs);
  return { arrivals: arrivals.sort((a, b) => a.atMs - b.atMs), spikes, bursts };
}

/** Whether the providers together could serve the trace, judged by an ideal router. */
export interface CapacityCheck {
  /** Requests that would find every provider's quota spent (or down) on arrival. */
  unservable: number;
  /** Most requests within one second, and when. */
  peakSecond: { requests: number; atMs: number };
  /** Most requests within one minute (sliding), per second. */
  peakMinutePerSecond: number;
  /** Sum of all sustained quotas, requests/s, and the least of it while an outage lasts. */
  sustainedPerSecond: number;
  sustainedDuringOutagePerSecond: number;
}

/**
 * An ideal router sends each request to any provider that has quota left and is up, so the
 * providers act as one bucket: the sum of the rates of those that are up, with the sum of their
 * burst depths. A request that finds that bucket empty could not be served by any router.
 */
export function checkCapacity(
  trace: readonly Arrival[],
  providers: readonly SimProviderSpec[],
): CapacityCheck {
  const up = (p: SimProviderSpec, atMs: number) => !inOutage(p, atMs);
  const buckets = providers.map((p) => ({
    spec: p,
    tokens: (p.quotaPerMinute / 60) * p.burstSeconds,
    at: 0,
  }));
  let unservable = 0;
  for (const arrival of trace) {
    let served = false;
    for (const b of buckets) {
      b.tokens = Math.min(
        (b.spec.quotaPerMinute / 60) * b.spec.burstSeconds,
        b.tokens + ((arrival.atMs - b.at) * b.spec.quotaPerMinute) / 60_000,
      );
      b.at = arrival.atMs;
      if (!served && up(b.spec, arrival.atMs) && b.tokens >= 1) {
        b.tokens -= 1;
        served = true;
      }
    }
    if (!served) unservable++;
  }
  const window = (ms: number) => {
    let best = { requests: 0, atMs: 0 };
    for (let i = 0, j = 0; i < trace.length; i++) {
      while ((trace[i] as Arrival).atMs - (trace[j] as Arrival).atMs >= ms) j++;
      if (i - j + 1 > best.requests) best = { requests: i - j + 1, atMs: (trace[j] as Arrival).atMs };
    }
    return best;
  };
  const sustained = providers.reduce((n, p) => n + p.quotaPerMinute / 60, 0);
  const worstOutage = Math.max(0, ...providers.filter((p) => p.outage).map((p) => p.quotaPerMinute / 60));
  return {
    unservable,
    peakSecond: window(1_000),
    peakMinutePerSecond: window(60_000).requests / 60,
    sustainedPerSecond: sustained,
    sustainedDuringOutagePerSecond: sustained - worstOutage,
  };
}
