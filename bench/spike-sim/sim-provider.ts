/**
 * A simulated LLM provider for the spike simulator: a requests-per-minute quota kept as a token
 * bucket (429 with `Retry-After` beyond it, as real providers answer), a log-normal latency, and
 * an optional outage window answering 503. It implements the `ChatModel` contract, so the real
 * router calls it exactly as it calls a real adapter.
 */
import type { CallOptions, ChatModel, ChatRequest, ChatResult } from '../../lambda/core/chat/chat-model.js';
import { ProviderError } from '../../lambda/core/failures/provider-error.js';
import type { Random } from '../../lambda/core/time.js';
import { inOutage, type ProviderSpec, sampleLatency } from '../../lambda/dev/demo/provider-spec.js';
import type { VirtualTime } from './virtual-time.js';

/**
 * A simulated provider of the spike simulation: its quota (`quotaPerMinute`, sustained) is a token
 * bucket, and its outage offsets count from the start of the trace.
 */
export interface SimProviderSpec extends ProviderSpec {
  /** Depth of the bucket, in seconds of quota: how big a burst is absorbed. */
  burstSeconds: number;
  /** How long a 429 or outage answer takes, in ms. */
  errorLatencyMs: number;
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
  spec: SimProviderSpec,
  time: VirtualTime,
  start: number,
  random: Random,
): SimProvider {
  const perMs = spec.quotaPerMinute / 60_000;
  const capacity = Math.max(1, spec.quotaPerMinute / 60) * spec.burstSeconds;
  let tokens = capacity;
  let refilledAt = start;
  const stats: ProviderStats = { calls: 0, ok: 0, rateLimited: 0, outage: 0 };

  const fail = (status: number, retryAfterMs?: number) =>
    new ProviderError({
      provider: spec.modelKey,
      model: spec.modelKey,
      status,
      failureClass: status === 429 ? 'rate_limited' : 'unavailable',
      retryAfterMs,
      message: status === 429 ? 'rate limit reached for requests' : 'the server is overloaded',
    });

  async function generate(_request: ChatRequest, options: CallOptions): Promise<ChatResult> {
    const now = time.now();
    stats.calls++;
    const offset = now - start;
    if (spec.outage && inOutage(spec, offset)) {
      stats.outage++;
      await time.sleep(spec.errorLatencyMs, options.signal);
      throw fail(spec.outage.status);
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
    await time.sleep(sampleLatency(spec.latency, random), options.signal);
    stats.ok++;
    return {
      content: 'ok',
      toolCalls: [],
      finishReason: 'stop',
      usage: { inputTokens: 200, outputTokens: 50 },
    };
  }

  const model: ChatModel = {
    key: spec.modelKey,
    provider: spec.modelKey,
    generate,
    // biome-ignore lint/correctness/useYield: the simulation only sends plain requests
    async *stream() {
      throw new Error('the spike simulator does not stream');
    },
  };
  return { model, stats };
}
