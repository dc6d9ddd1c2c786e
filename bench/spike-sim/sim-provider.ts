/**
 * A simulated LLM provider for the spike simulator: a requests-per-minute quota kept as a token
 * bucket (429 with `Retry-After` beyond it, as real providers answer), a log-normal latency, and
 * an optional outage window answering 503. It implements the `ChatModel` contract, so the real
 * router calls it exactly as it calls a real adapter.
 */
import type { CallOptions, ChatModel, ChatRequest, ChatResult } from '../../lambda/core/chat/chat-model.js';
import { ProviderError } from '../../lambda/core/failures/provider-error.js';
import type { Random } from '../../lambda/core/time.js';
import type { VirtualTime } from './virtual-time.js';

/** What a simulated provider is like. */
export interface ProviderSpec {
  /** Model key in the chain, e.g. `officialA`. */
  key: string;
  /** Sustained quota in requests per minute. */
  rpm: number;
  /** Depth of the bucket, in seconds of quota: how big a burst is absorbed. */
  burstSeconds: number;
  /** Median and 95th percentile latency of a successful call, in ms (log-normal). */
  latency: { medianMs: number; p95Ms: number };
  /** How long a 429 or 503 answer takes, in ms. */
  errorLatencyMs: number;
  /** Answers 503 to everything between these offsets from the start of the trace, in ms. */
  outage?: { fromMs: number; toMs: number } | undefined;
}

/** What one provider saw during a run. */
export interface ProviderStats {
  calls: number;
  ok: number;
  /** Calls that arrived while the quota was spent: answered 429. */
  rateLimited: number;
  /** Calls that arrived during the outage: answered 503. */
  outage: number;
}

/** z-score of the 95th percentile of a standard normal. */
const Z95 = 1.6448536;
/** Latency samples are capped here, so one extreme draw cannot stall a simulation. */
const MAX_LATENCY_MS = 60_000;

/** A standard normal draw (Box–Muller) from a uniform source. */
function normal(random: Random): number {
  const u = Math.max(random(), Number.EPSILON);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** A simulated provider, and what it saw. */
export interface SimProvider {
  model: ChatModel;
  stats: ProviderStats;
}

/**
 * Creates one simulated provider on the virtual clock. `start` is the virtual time of the
 * trace's beginning (outage offsets count from it); `random` drives its latency.
 */
export function createSimProvider(
  spec: ProviderSpec,
  time: VirtualTime,
  start: number,
  random: Random,
): SimProvider {
  const perMs = spec.rpm / 60_000;
  const capacity = Math.max(1, spec.rpm / 60) * spec.burstSeconds;
  const sigma = Math.log(spec.latency.p95Ms / spec.latency.medianMs) / Z95;
  let tokens = capacity;
  let refilledAt = start;
  const stats: ProviderStats = { calls: 0, ok: 0, rateLimited: 0, outage: 0 };

  const fail = (status: 429 | 503, retryAfterMs?: number) =>
    new ProviderError({
      provider: spec.key,
      model: spec.key,
      status,
      failureClass: status === 429 ? 'rate_limited' : 'unavailable',
      retryAfterMs,
      message: status === 429 ? 'rate limit reached for requests' : 'the server is overloaded',
    });

  async function generate(_request: ChatRequest, options: CallOptions): Promise<ChatResult> {
    const now = time.now();
    stats.calls++;
    const offset = now - start;
    if (spec.outage && offset >= spec.outage.fromMs && offset < spec.outage.toMs) {
      stats.outage++;
      await time.sleep(spec.errorLatencyMs, options.signal);
      throw fail(503);
    }
    tokens = Math.min(capacity, tokens + (now - refilledAt) * perMs);
    refilledAt = now;
    if (tokens < 1) {
      stats.rateLimited++;
      // Whole seconds until the next request fits, as a `Retry-After` header carries it.
      const retryAfterMs = Math.max(1, Math.ceil((1 - tokens) / perMs / 1000)) * 1000;
      await time.sleep(spec.errorLatencyMs, options.signal);
      throw fail(429, retryAfterMs);
    }
    tokens -= 1;
    const latency = Math.min(
      MAX_LATENCY_MS,
      Math.round(spec.latency.medianMs * Math.exp(sigma * normal(random))),
    );
    await time.sleep(latency, options.signal);
    stats.ok++;
    return {
      content: 'ok',
      toolCalls: [],
      finishReason: 'stop',
      usage: { inputTokens: 200, outputTokens: 50 },
    };
  }

  const model: ChatModel = {
    key: spec.key,
    provider: spec.key,
    generate,
    // biome-ignore lint/correctness/useYield: the simulation only sends plain requests
    async *stream() {
      throw new Error('the spike simulator does not stream');
    },
  };
  return { model, stats };
}
