/**
 * A simulated LLM provider for the demo: the scriptable OpenAI-compatible fake, with a
 * per-minute request quota (429 + Retry-After beyond it), a lognormal latency and an optional
 * outage window. It counts what it answered, so the report can show what the upstreams saw.
 */
import type { Random } from '../../core/time.js';
import type { Fault } from '../fakes/fault.js';
import { startFakeOpenAI } from '../fakes/openai-fake.js';
import type { DemoProviderSpec } from './demo-scenario.js';
import { inOutage, sampleLatency } from './provider-spec.js';

/** What one simulated provider answered so far. */
export interface ProviderCounts {
  /** Requests answered 200 (within quota). */
  served: number;
  /** Requests answered 429 because the quota minute was spent. */
  rateLimited: number;
  /** Requests answered with the outage status. */
  outage: number;
}

/** A running simulated provider. */
export interface SimulatedProvider {
  readonly spec: DemoProviderSpec;
  /** Base URL for an OpenAI-compatible client (ends with `/v1`). */
  readonly url: string;
  /** Live counters. */
  readonly counts: Readonly<ProviderCounts>;
  /** Stops listening and drops every connection. Idempotent. */
  close(): Promise<void>;
}

/** Options of {@link startSimulatedProvider}. */
export interface SimulatedProviderOptions {
  /** Real ms that stand for one quota minute. */
  minuteMs: number;
  /** Epoch ms the run started at: quota minutes and the outage window count from here. */
  startedAt: number;
  random: Random;
  /** Clock in epoch ms. Default `Date.now`. */
  now?: (() => number) | undefined;
}

/**
 * Decides the fault for one request. Quota minutes are fixed windows counted from the start of
 * the run, like a provider's RPM counter; a refused request does not use up quota. Rate limiters
 * answer fast, so 429s and outage errors come back within a few tens of ms.
 */
export function createQuotaPolicy(spec: DemoProviderSpec, options: SimulatedProviderOptions) {
  const now = options.now ?? Date.now;
  const counts: ProviderCounts = { served: 0, rateLimited: 0, outage: 0 };
  let minute = -1;
  let usedThisMinute = 0;
  const decide = (): Fault => {
    const t = now() - options.startedAt;
    if (spec.outage && inOutage(spec, t)) {
      counts.outage++;
      return { status: spec.outage.status, latencyMs: 20 + Math.floor(options.random() * 30) };
    }
    const current = Math.floor(t / options.minuteMs);
    if (current !== minute) {
      minute = current;
      usedThisMinute = 0;
    }
    if (usedThisMinute >= spec.quotaPerMinute) {
      counts.rateLimited++;
      const untilNextMinute = (current + 1) * options.minuteMs - t;
      return {
        status: 429,
        // Retry-After is whole seconds: the next quota minute is always less than one away.
        retryAfter: Math.max(1, Math.ceil(untilNextMinute / 1000)),
        latencyMs: 10 + Math.floor(options.random() * 30),
        errorMessage: `Rate limit reached for ${spec.rawModel}: ${spec.quotaPerMinute} requests per minute.`,
        errorCode: 'rate_limit_exceeded',
      };
    }
    usedThisMinute++;
    counts.served++;
    return { latencyMs: sampleLatency(spec.latency, options.random) };
  };
  return { decide, counts };
}

/** Starts one simulated provider on a free loopback port. */
export async function startSimulatedProvider(
  spec: DemoProviderSpec,
  options: SimulatedProviderOptions,
): Promise<SimulatedProvider> {
  // The request log is not needed: keep it small so a long run stays bounded in memory.
  const fake = await startFakeOpenAI({ host: '127.0.0.1', logLimit: 1_000 });
  const policy = createQuotaPolicy(spec, options);
  fake.onRequest(() => policy.decide());
  return {
    spec,
    url: fake.url,
    counts: policy.counts,
    close: () => fake.close(),
  };
}
