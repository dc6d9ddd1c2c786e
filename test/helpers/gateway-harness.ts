import OpenAI from 'openai';
import { parseConfig } from '../../lambda/config/switchyard-config.js';
import type { AdmissionStore } from '../../lambda/core/admission/admission-store.js';
import type { BreakerStore } from '../../lambda/core/breaker/breaker-store.js';
import type { ChainParameterStore } from '../../lambda/core/catalog/chain-sources.js';
import { jobsSchema } from '../../lambda/core/catalog/jobs-config-schema.js';
import type { JobStore } from '../../lambda/core/jobs/job-ports.js';
import type { AnswerCache } from '../../lambda/core/last-resort/answer-cache.js';
import type { LedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { type Logger, silentLogger } from '../../lambda/core/logger.js';
import type { Clock, Random, Sleep } from '../../lambda/core/time.js';
import type { SpanTracer } from '../../lambda/core/tracing/span-port.js';
import { startFakeAnthropic } from '../../lambda/dev/fakes/anthropic-fake.js';
import { startFakeBedrock } from '../../lambda/dev/fakes/bedrock-fake.js';
import type { FakeUpstream } from '../../lambda/dev/fakes/fake-upstream.js';
import { startFakeOpenAI } from '../../lambda/dev/fakes/openai-fake.js';
import { sha256Hex } from '../../lambda/http/caller-auth.js';
import { createMemoryJobQueue, type MemoryJobQueue } from '../../lambda/jobs/memory/memory-job-queue.js';
import { createMemoryJobStore, type MemoryJobStore } from '../../lambda/jobs/memory/memory-job-store.js';
import { createLocalJobWorker } from '../../lambda/jobs/runner/in-process-worker.js';
import type { LocalJobRunner } from '../../lambda/jobs/runner/queue-poller.js';
import type { ChainOverrideStore } from '../../lambda/overrides/chain-override-store.js';
import { createLocalGateway } from '../../lambda/wiring/create-local-gateway.js';
import { envProviderAccess } from '../../lambda/wiring/env-provider-access.js';
import { type RunningServer, startServer } from '../../lambda/wiring/start-server.js';
import { systemClock } from '../../lambda/wiring/system-time.js';

export const PRICE = { inputPerMTok: 2, outputPerMTok: 8 };

/** A job store and queue in memory, for a harness's job routes and its worker; the test reads them. */
export interface MemoryJobs {
  store: MemoryJobStore;
  queue: MemoryJobQueue;
}

/** Fresh in-memory jobs: a store of at most `maxJobs` records, a queue with the config's receive count. */
export function memoryJobs(options: { maxJobs?: number } = {}): MemoryJobs {
  return {
    store: createMemoryJobStore({ clock: systemClock, maxJobs: options.maxJobs }),
    queue: createMemoryJobQueue({
      clock: systemClock,
      maxReceiveCount: jobsSchema.parse({}).maxReceiveCount,
    }),
  };
}

/** Caller keys in clear, by name; the harness puts their hashes in `auth.keys`. */
export interface HarnessAuth {
  keys: Record<string, string>;
  operatorKeys?: string[];
}

/** `Authorization: Bearer <key>`. */
export const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });

/**
 * The real gateway over real HTTP on loopback, in front of the three fakes. Models: `a`, `b`, `c`
 * on the OpenAI-compatible fake (raw ids `model-a`…), `br` on the Bedrock fake (`bedrock-model`), and
 * `quick` (`model-quick`, a 400 ms attempt timeout) for silences. With `keyless`, also model `s`
 * (`model-s`) of provider `spare`, whose key `SPARE_KEY` is unset until a test writes `h.env.SPARE_KEY`.
 * With `jobs`, the job routes on those in-memory jobs and `startWorker()`; with `auth`, caller keys.
 */
export async function startGatewayHarness(
  pipelines: Record<string, unknown>,
  options: {
    maxBodyBytes?: number;
    /** Adds a provider `spare` (key `SPARE_KEY`, unset) with one model `s`. */
    keyless?: boolean;
    /** Adds the Anthropic provider `an` (key `ANTHROPIC_KEY`, set) with one model `an` (`claude-model`). */
    anthropic?: boolean;
    /** `POST /v1/jobs` and `GET /v1/jobs/{id}` on these jobs (any store); `startWorker()` runs them. */
    jobs?: { store: JobStore; queue: MemoryJobQueue };
    /** Turns caller authentication on with these keys. */
    auth?: HarnessAuth;
    /** The last-resort answer cache; default: the gateway's own memory cache. */
    answers?: AnswerCache;
    /** Admission counters; default: the gateway's own memory store. */
    admissionStore?: AdmissionStore;
    /** Breaker state; default: the gateway's own memory store. */
    breakerStore?: BreakerStore;
    /** Time and randomness of the gateway; default the system's (a fake clock passes its own `sleep`). */
    time?: { clock: Clock; random: Random; sleep: Sleep };
    /** The operators' overrides, read on every request between env and config. */
    overrides?: ChainParameterStore;
    /** The operator console's endpoints on this store, which is also the gateway's override source. */
    operatorConsole?: ChainOverrideStore;
    /** The gateway's clock; default the system's. */
    clock?: Clock;
    /** The gateway's random source (tier picks, canary draws); default the system's. */
    random?: Random;
    /** Adds to the config before it is parsed (limits, schedules, model settings...). */
    configure?: (config: Record<string, unknown> & { models: Record<string, object> }) => void;
    /** Where request and attempt spans go; default: none. */
    tracer?: SpanTracer;
    /** The gateway's log; default: silent. */
    log?: Logger;
    /** Bedrock signs with the AWS SDK's default provider chain (the process env) instead of fake static keys. */
    sdkCredentials?: boolean;
  } = {},
) {
  const openai = await startFakeOpenAI();
  const bedrock = await startFakeBedrock();
  const anthropic = await startFakeAnthropic();
  const raw = {
    providers: {
      fake: { type: 'openai', baseURL: openai.url, apiKeyEnv: 'FAKE_KEY' },
      br: { type: 'bedrock', region: 'us-east-1', endpoint: bedrock.url },
      ...(options.keyless ? { spare: { type: 'openai', baseURL: openai.url, apiKeyEnv: 'SPARE_KEY' } } : {}),
      ...(options.anthropic
        ? { an: { type: 'anthropic', baseURL: anthropic.url, apiKeyEnv: 'ANTHROPIC_KEY' } }
        : {}),
    },
    models: {
      a: { provider: 'fake', model: 'model-a', price: PRICE },
      b: { provider: 'fake', model: 'model-b', price: PRICE },
      c: { provider: 'fake', model: 'model-c', price: PRICE },
      br: { provider: 'br', model: 'bedrock-model', price: PRICE },
      quick: { provider: 'fake', model: 'model-quick', timeoutMs: 400 },
      ...(options.keyless ? { s: { provider: 'spare', model: 'model-s' } } : {}),
      ...(options.anthropic ? { an: { provider: 'an', model: 'claude-model', price: PRICE } } : {}),
    },
    pipelines,
    ...(options.auth ? { auth: hashedAuth(options.auth) } : {}),
  };
  options.configure?.(raw as Parameters<NonNullable<typeof options.configure>>[0]);
  const config = parseConfig(raw);
  const ledger: LedgerEntry[] = [];
  const env: NodeJS.ProcessEnv = {
    FAKE_KEY: 'sk-test-secret-key-0123456789abcdef',
    ANTHROPIC_KEY: 'sk-ant-test-secret-key-0123456789',
  };
  const local = createLocalGateway({
    config,
    env,
    log: options.log ?? silentLogger,
    ledger: (entry) => ledger.push(entry),
    access: {
      ...envProviderAccess(config, env),
      ...(options.sdkCredentials
        ? {}
        : { bedrockCredentials: { accessKeyId: 'AKIDFAKE', secretAccessKey: 'fake' } }),
    },
    maxBodyBytes: options.maxBodyBytes,
    answers: options.answers,
    admissionStore: options.admissionStore,
    store: options.breakerStore,
    overrides: options.operatorConsole ?? options.overrides,
    operator: options.operatorConsole && {
      store: options.operatorConsole,
      where: 'test store',
      env,
      appliesWithinMs: 0,
    },
    clock: options.clock,
    random: options.random,
    jobs: options.jobs && { ...options.jobs, retentionDays: config.jobs.retentionDays },
    ...options.time,
    tracer: options.tracer,
  });
  const server: RunningServer = await startServer(local.app, { port: 0, host: '127.0.0.1' });
  let worker: LocalJobRunner | undefined;
  const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'caller-key', maxRetries: 0 });
  return {
    url: server.url,
    /** The parsed config the gateway runs on. */
    config,
    client,
    /** The environment the gateway reads provider keys from, at every attempt. */
    env,
    openai,
    bedrock,
    anthropic,
    ledger,
    attempts: () => ledger.filter((e) => e.type === 'attempt'),
    requests: () => ledger.filter((e) => e.type === 'request'),
    /** Upstream requests the fakes received, by raw model id. */
    received: (model: string): number =>
      [openai, bedrock, anthropic].reduce((n, f: FakeUpstream) => n + f.requestsFor(model).length, 0),
    post: (body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    /** `POST /v1/messages`, the Anthropic front door. */
    postMessages: (body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${server.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    /**
     * Starts the in-process worker on the harness's jobs (polling every 10 ms); `close()` stops it.
     * `retryDelaySeconds`: when a job that must run again is visible (default the worker's, 5 s).
     */
    startWorker(workerOptions: { retryDelaySeconds?: number } = {}) {
      const jobs = options.jobs;
      if (!jobs) throw new Error('the harness has no jobs: pass options.jobs');
      worker = createLocalJobWorker({
        store: jobs.store,
        consumer: jobs.queue,
        gateway: local.gateway,
        catalog: local.catalog,
        env,
        log: silentLogger,
        clock: systemClock,
        pollIntervalMs: 10,
        retryDelaySeconds: workerOptions.retryDelaySeconds,
        admission: local.jobAdmission,
      });
      worker.start();
    },
    async close() {
      await worker?.stop();
      await server.close(1_000);
      await Promise.all([openai.close(), bedrock.close(), anthropic.close()]);
    },
  };
}

function hashedAuth(auth: HarnessAuth) {
  const keys = Object.fromEntries(Object.entries(auth.keys).map(([name, key]) => [name, sha256Hex(key)]));
  return { keys, operatorKeys: auth.operatorKeys };
}

export type GatewayHarness = Awaited<ReturnType<typeof startGatewayHarness>>;

export const HELLO = { messages: [{ role: 'user', content: 'hello there' }] };

/**
 * Adds a Vertex provider on the harness's OpenAI-compatible fake (its key from `VERTEX_SA_JSON`)
 * and a model `v` on it: for `configure`.
 */
export function addFakeVertex(config: Record<string, unknown> & { models: Record<string, unknown> }): void {
  const providers = config.providers as Record<string, object>;
  const fake = providers.fake as { baseURL: string };
  providers.vertex = {
    type: 'vertex',
    project: 'switchyard-test',
    location: 'us-central1',
    baseURL: fake.baseURL,
    apiKeyEnv: 'VERTEX_SA_JSON',
  };
  config.models.v = { provider: 'vertex', model: 'google/gemini-v' };
}

/** Polls until `condition` holds (for things that happen on the other side of a socket). */
export async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('timed out waiting for a condition');
    await new Promise((r) => setTimeout(r, 10));
  }
}
