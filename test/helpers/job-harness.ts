import type * as z from 'zod';
import type { SwitchyardConfig } from '../../lambda/config/switchyard-config.js';
import { parseConfig } from '../../lambda/config/switchyard-config.js';
import { createBreakers } from '../../lambda/core/breaker/breakers.js';
import { createCatalog } from '../../lambda/core/catalog/catalog.js';
import { createConfigChainSource } from '../../lambda/core/catalog/chain-sources.js';
import { createScheduleSchema, type ScheduleConfig } from '../../lambda/core/catalog/jobs-config-schema.js';
import type { ChatModel, ChatResult } from '../../lambda/core/chat/chat-model.js';
import type { FailureClass } from '../../lambda/core/failures/failure-class.js';
import { ProviderError } from '../../lambda/core/failures/provider-error.js';
import { createGateway } from '../../lambda/core/gateway/gateway.js';
import type { Deliverer, DeliveryOutcome } from '../../lambda/core/jobs/deliverer.js';
import type { JobDelivery } from '../../lambda/core/jobs/job.js';
import { runJob } from '../../lambda/core/jobs/run-job.js';
import type { LedgerEntry, RequestLedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { silentLogger } from '../../lambda/core/logger.js';
import type { RouteModel } from '../../lambda/core/router/route-types.js';
import type { JobWebhookBody } from '../../lambda/doors/jobs/job-format.js';
import { chatJobFormat } from '../../lambda/doors/jobs/job-format.js';
import { storedJobRequestSchema } from '../../lambda/doors/jobs/job-request-schema.js';
import { createMemoryJobQueue } from '../../lambda/jobs/memory/memory-job-queue.js';
import { createMemoryJobStore } from '../../lambda/jobs/memory/memory-job-store.js';
import { createMemoryAnswerCache } from '../../lambda/stores/memory-answer-cache.js';
import { createMemoryBreakerStore } from '../../lambda/stores/memory-breaker-store.js';
import { createAjvSchemaValidator } from '../../lambda/validation/ajv-schema-validator.js';
import { seededRandom } from '../../lambda/wiring/seeded-random.js';
import { sha256Digest } from '../../lambda/wiring/sha256-digest.js';
import { createFakeClock } from './fake-clock.js';
import { ABC_CONFIG } from './test-config.js';
import { uniformTimeouts } from './uniform-timeouts.js';

/** A config with models a, b, c (never called over HTTP here) and pipeline `p` = `(a|b),c`. */
export function jobsConfig(extra: Record<string, unknown> = {}): SwitchyardConfig {
  return parseConfig({ ...ABC_CONFIG, ...extra });
}

/** A schedule on pipeline `p` with `n` jobs `job-1`… */
const scheduleSchema = createScheduleSchema(storedJobRequestSchema);

export function scheduleOf(n: number, extra: Partial<z.input<typeof scheduleSchema>> = {}): ScheduleConfig {
  return scheduleSchema.parse({
    expression: 'rate(5 minutes)',
    pipeline: 'p',
    jobs: Array.from({ length: n }, (_, i) => ({
      id: `job-${i + 1}`,
      request: { messages: [{ role: 'user' as const, content: `task ${i + 1}` }] },
    })),
    ...extra,
  });
}

/** A deliverer that records what it was given and answers from a script (the last answer repeats). */
export function recordingDeliverer(script: DeliveryOutcome[] = [{ ok: true, status: 200 }]) {
  const calls: { delivery: JobDelivery; body: JobWebhookBody }[] = [];
  const deliverer: Deliverer = {
    async deliver(delivery, body) {
      calls.push({ delivery, body: body as JobWebhookBody });
      return script[Math.min(calls.length - 1, script.length - 1)] ?? { ok: true, status: 200 };
    },
  };
  return { deliverer, calls };
}

/** How every upstream answers right now: `ok`, or a failure class with its status. */
export type Upstream = { ok: true } | { fail: FailureClass; status: number };

/** A model whose answer follows a switch the test flips: every route fails until the incident ends. */
function switchedModel(key: string, upstream: () => Upstream, calls: string[]): ChatModel {
  const generate = async (): Promise<ChatResult> => {
    calls.push(key);
    const now = upstream();
    if ('fail' in now) {
      throw new ProviderError({
        provider: 'fake',
        model: key,
        failureClass: now.fail,
        status: now.status,
        message: `scripted ${now.fail}`,
      });
    }
    return {
      content: `answer from ${key}`,
      toolCalls: [],
      finishReason: 'stop',
      usage: { inputTokens: 7, outputTokens: 3 },
    };
  };
  return {
    key,
    provider: 'fake',
    generate,
    async *stream() {
      yield { type: 'text', text: (await generate()).content ?? '' };
    },
  };
}

/**
 * The real gateway and router over models `a`, `b`, `c` that answer as `harness.upstream` says, a
 * fake clock, a memory job store and queue, and a recording deliverer: `run(jobId)` is one worker
 * receive.
 */
export function createJobHarness(options: { maxReceiveCount?: number } = {}) {
  const clock = createFakeClock();
  const config = jobsConfig();
  const catalog = createCatalog(config);
  const ledger: LedgerEntry[] = [];
  const calls: string[] = [];
  const state: { upstream: Upstream } = { upstream: { ok: true } };
  const models = new Map<string, RouteModel>();
  for (const key of ['a', 'b', 'c']) {
    models.set(key, {
      model: switchedModel(key, () => state.upstream, calls),
      timeouts: uniformTimeouts(10_000),
    });
  }
  const gateway = createGateway({
    catalog,
    sources: [createConfigChainSource(catalog)],
    models,
    breakers: createBreakers({
      store: createMemoryBreakerStore(),
      clock,
      policyFor: (pipeline) => catalog.policy(pipeline).breaker,
    }),
    clock,
    random: seededRandom(7),
    sleep: clock.sleep,
    ledger: (entry) => ledger.push(entry),
    log: silentLogger,
    output: {
      validator: createAjvSchemaValidator(),
      answers: createMemoryAnswerCache(config.answerCache),
      digest: sha256Digest,
    },
  });
  const store = createMemoryJobStore({ clock });
  const queue = createMemoryJobQueue({ clock, maxReceiveCount: options.maxReceiveCount ?? 3 });
  const delivery = recordingDeliverer();
  return {
    state,
    clock,
    config,
    gateway,
    store,
    queue,
    ledger,
    deliveries: delivery.calls,
    deliverer: delivery.deliverer,
    /** Upstream calls so far, over all models. */
    upstreamCalls: () => calls.length,
    requestLines: () => ledger.filter((e): e is RequestLedgerEntry => e.type === 'request'),
    run: (jobId: string, deliverer: Deliverer | undefined = delivery.deliverer) =>
      runJob(jobId, {
        store,
        gateway,
        format: chatJobFormat,
        deliverer,
        clock,
        leaseMs: 60_000,
        log: silentLogger,
      }),
  };
}
