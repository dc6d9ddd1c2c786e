/**
 * What a simulated LLM provider is like, for the demo (the scriptable fake over real HTTP) and the
 * spike simulation (a virtual clock) alike: the model it serves, its per-minute quota, a lognormal
 * latency and an optional outage window.
 */
import type { Random } from '../../core/time.js';

/** A lognormal latency: most answers near the median, a long right tail, capped. */
export interface LatencySpec {
  /** Median latency in ms. */
  medianMs: number;
  /** Standard deviation of the log (0.4 ≈ p95 at 1.9× the median). */
  sigma: number;
  /** Upper bound in ms, so that one extreme draw cannot outlive the run. */
  maxMs: number;
}

/** A window in which a provider answers every request with an error status. */
export interface OutageSpec {
  /** Start, ms after the run started. */
  startMs: number;
  /** End (exclusive), ms after the run started. */
  endMs: number;
  /** Status answered during the outage, e.g. 503. */
  status: number;
}

/** One simulated provider; the demo and the simulation each add what only they need. */
export interface ProviderSpec {
  /** Catalog key of its model in chains, e.g. `gpt-mini`. */
  modelKey: string;
  /** Requests accepted per quota minute; beyond it: 429 with `Retry-After`. */
  quotaPerMinute: number;
  latency: LatencySpec;
  outage?: OutageSpec | undefined;
}

/** z-score of the 95th percentile of a standard normal. */
const Z95 = 1.6448536;

/** The lognormal latency with this median and 95th percentile (ms), capped at `maxMs`. */
export function latencyFromP95(medianMs: number, p95Ms: number, maxMs: number): LatencySpec {
  return { medianMs, sigma: Math.log(p95Ms / medianMs) / Z95, maxMs };
}

/** A lognormal sample (Box–Muller) in whole ms, capped at `maxMs`. Draws `random` twice. */
export function sampleLatency(spec: LatencySpec, random: Random): number {
  const u = Math.max(random(), Number.EPSILON);
  const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
  return Math.min(spec.maxMs, Math.round(spec.medianMs * Math.exp(spec.sigma * z)));
}

/** True when `offsetMs` (ms after the run started) falls inside the provider's outage. */
export function inOutage(spec: Pick<ProviderSpec, 'outage'>, offsetMs: number): boolean {
  return spec.outage !== undefined && offsetMs >= spec.outage.startMs && offsetMs < spec.outage.endMs;
}
