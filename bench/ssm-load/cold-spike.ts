import { Agent } from 'node:http';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SSMClient } from '@aws-sdk/client-ssm';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { RetryStrategyV2 } from '@smithy/types';
import { parseConfig } from '../../lambda/config/switchyard-config.js';
import { sha256Hex } from '../../lambda/http/caller-auth.js';
import { dynaliteDocuments, seedCallerKeyTable } from '../../test/helpers/caller-key-table.js';
import { startDynalite } from '../../test/helpers/dynalite.js';
import { createFakeClock } from '../../test/helpers/fake-clock.js';
import { startFakeSecretsManager } from '../../test/helpers/fake-secrets-manager.js';
import { startFakeSsm } from '../../test/helpers/fake-ssm.js';
import { createColdContainer, type KeyPath, type Outcome } from './cold-container.js';

const PREFIX = '/switchyard';
const PROVIDERS = ['openai', 'groq', 'together', 'openrouter'];
const CALLER_KEY = 'sy-bench-caller-key-000000000000000000000000';
const TABLE = 'switchyard-caller-keys-bench';

/** The spike: `containers` new containers arriving evenly over `arrivalMs`, SSM answering `ssmTps` calls a second. */
export interface SpikeSettings {
  containers: number;
  arrivalMs: number;
  ssmTps: number;
  /** Each container then serves one request a second until this long after the first arrival, in ms. */
  endMs: number;
}

/** What callers and the services saw during one spike. */
export interface SpikeResult {
  path: KeyPath;
  providerKeysIn: ProviderKeyStore;
  requests: number;
  /** Outcomes of every container's first request. */
  first: Map<Outcome, number>;
  /** Outcomes of all requests. */
  all: Map<Outcome, number>;
  /** First request's time from arrival to answer (cold start included), ms: p50 and p99. */
  firstP50: number;
  firstP99: number;
  ssmCalls: number;
  ssmThrottled: number;
  dynamoDbCalls: number;
  secretsCalls: number;
}

const count = <T>(items: readonly T[]) => {
  const m = new Map<T, number>();
  for (const i of items) m.set(i, (m.get(i) ?? 0) + 1);
  return m;
};
const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** The SDK's own retry of the path before (maxAttempts 2), without its real-time pause: the bench's time is virtual. */
const oneImmediateRetry: RetryStrategyV2 = {
  acquireInitialRetryToken: async () => ({ getRetryCount: () => 0, getRetryDelay: () => 0 }),
  refreshRetryTokenForRetry: async (previous, info) => {
    if (previous.getRetryCount() >= 1 || info.errorType === 'CLIENT_ERROR') throw info.error;
    return { getRetryCount: () => 1, getRetryDelay: () => 0 };
  },
  recordSuccess: () => {},
};

/** Counts the calls `client` has in flight, so the driver knows when a virtual instant is done. */
function tracked<T extends { send: (...args: never[]) => Promise<unknown> }>(
  client: T,
  inflight: { n: number },
): T {
  const send = client.send.bind(client) as (...args: unknown[]) => Promise<unknown>;
  (client as { send: unknown }).send = (...args: unknown[]) => {
    inflight.n += 1;
    return send(...args).finally(() => {
      inflight.n -= 1;
    });
  };
  return client;
}

/**
 * Runs one spike on a VIRTUAL clock, over loopback: a fake SSM limited to `ssmTps` on that clock
 * (account-wide, every operation), a fake Secrets Manager and dynalite. Each simulated container is
 * a fresh set of the AWS wiring objects (`createColdContainer`); the SDK clients are shared (one
 * socket pool). The driver lets every call of the current instant finish (real time, zero virtual
 * time), then moves the clock to the next sleeper: arrivals, retry pauses, the next request. So the
 * figures depend on the code and the quota, not on how busy the machine is.
 */
/** Where the provider keys live: `ssm` under the prefix (the default config), or Secrets Manager. */
export type ProviderKeyStore = 'ssm' | 'secrets';

export async function runColdSpike(
  path: KeyPath,
  providerKeysIn: ProviderKeyStore,
  settings: SpikeSettings,
): Promise<SpikeResult> {
  const [ssm, secrets, dynalite] = await Promise.all([
    startFakeSsm(),
    startFakeSecretsManager(),
    startDynalite(),
  ]);
  const db = dynaliteDocuments(dynalite.endpoint);
  const clock = createFakeClock(1_700_000_000_000);
  const inflight = { n: 0 };
  let dynamoDbCalls = 0;
  const documents = tracked(
    {
      send: (...args: Parameters<typeof db.documents.send>) => {
        dynamoDbCalls += 1;
        return db.documents.send(...args);
      },
    } as typeof db.documents,
    inflight,
  );
  const handler = () =>
    new NodeHttpHandler({
      httpAgent: new Agent({ keepAlive: true, maxSockets: 256 }),
      connectionTimeout: 1_000,
      requestTimeout: 2_000,
    });
  const credentials = { accessKeyId: 'AKIDBENCH', secretAccessKey: 'fake' };
  // The path before: the SDK's own single retry (maxAttempts 2). Now: one attempt, our own backoff.
  const ssmClient = tracked(
    new SSMClient({
      endpoint: ssm.url,
      region: 'us-east-1',
      credentials,
      ...(path === 'ssm' ? { retryStrategy: oneImmediateRetry } : { maxAttempts: 1 }),
      requestHandler: handler(),
    }),
    inflight,
  );
  const secretsClient = tracked(
    new SecretsManagerClient({
      endpoint: secrets.url,
      region: 'us-east-1',
      credentials,
      maxAttempts: 1,
      requestHandler: handler(),
    }),
    inflight,
  );
  try {
    const keyName = (p: string) =>
      providerKeysIn === 'ssm' ? `${PREFIX}/keys/${p}` : `switchyard/keys/${p}`;
    for (const p of PROVIDERS) {
      if (providerKeysIn === 'ssm') ssm.put(keyName(p), `sk-${p}`, { type: 'SecureString' });
      else secrets.create(keyName(p), `sk-${p}`);
    }
    if (path === 'ssm')
      ssm.put(`${PREFIX}/caller-keys`, JSON.stringify({ app: sha256Hex(CALLER_KEY) }), {
        type: 'SecureString',
      });
    else await seedCallerKeyTable(dynalite.endpoint, TABLE, { app: CALLER_KEY });
    for (let i = 1; i <= 4; i += 1) ssm.put(`${PREFIX}/chains/p${i}`, 'a,b');
    const config = parseConfig({
      providers: Object.fromEntries(
        PROVIDERS.map((p) => [
          p,
          { type: 'openai', baseURL: 'http://127.0.0.1:9/v1', apiKeySecret: keyName(p) },
        ]),
      ),
      models: { a: { provider: 'openai', model: 'x' }, b: { provider: 'groq', model: 'y' } },
      pipelines: { p1: { chain: 'a,b' } },
      aws: { ssmPrefix: PREFIX },
    });
    const ssmBefore = ssm.requests.length;
    ssm.limitRate(settings.ssmTps, clock.now);
    const t0 = clock.now();
    const sleep = (ms: number) => clock.sleep(Math.max(0, ms));
    const first: Outcome[] = [];
    const all: Outcome[] = [];
    const latencies: number[] = [];
    const lives = Array.from({ length: settings.containers }, async (_, i) => {
      const arrival = t0 + Math.floor((i * settings.arrivalMs) / settings.containers);
      await sleep(arrival - clock.now());
      const container = createColdContainer({
        path,
        config,
        ssm: ssmClient,
        secretsManager: secretsClient,
        documents,
        tableName: TABLE,
        seed: 7_000 + i,
        clock,
        sleep: clock.sleep,
      });
      await container.start();
      const outcome = await container.request(CALLER_KEY);
      latencies.push(clock.now() - arrival);
      first.push(outcome);
      all.push(outcome);
      for (let at = arrival + 1_000; at < t0 + settings.endMs; at += 1_000) {
        await sleep(at - clock.now());
        all.push(await container.request(CALLER_KEY));
      }
    });
    let finished = false;
    const done = Promise.all(lives).finally(() => {
      finished = true;
    });
    // One virtual instant at a time: every call it started has answered (and what followed has run).
    const tick = () => new Promise((resolve) => setImmediate(resolve));
    while (!finished) {
      for (let idle = 0; idle < 3; ) {
        await tick();
        idle = inflight.n === 0 ? idle + 1 : 0;
      }
      const next = clock.nextDue();
      if (next === undefined) break;
      clock.set(Math.max(next, clock.now()));
    }
    await done;
    latencies.sort((a, b) => a - b);
    return {
      path,
      providerKeysIn,
      requests: all.length,
      first: count(first),
      all: count(all),
      firstP50: percentile(latencies, 50),
      firstP99: percentile(latencies, 99),
      ssmCalls: ssm.requests.length - ssmBefore,
      ssmThrottled: ssm.throttledCount(),
      dynamoDbCalls,
      secretsCalls: secrets.requests.length,
    };
  } finally {
    ssmClient.destroy();
    secretsClient.destroy();
    db.destroy();
    await Promise.all([ssm.close(), secrets.close(), dynalite.stop()]);
  }
}
