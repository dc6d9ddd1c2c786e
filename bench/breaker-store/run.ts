/**
 * What shared breakers cost: the real router (`routeGenerate` + `createBreakers`, real clock) over
 * instant models, with breakers in (a) memory, (b) DynamoDB (dynalite in its own process, on
 * loopback), (c) DynamoDB behind a 1 s read cache. Two traffic shapes: steady 50 requests/s and
 * a spike of 500 requests at once with 20 % 429s on tier 1. DynamoDB commands are counted with
 * a client middleware. Loopback latency is far below DynamoDB's, so the added latency here is
 * the cost of the store code and the HTTP round trip, not a forecast for AWS.
 *
 *   npm run bench:breaker-store
 *   npm run bench:breaker-store -- --probes   (what the shared probe costs: probe-cost.ts)
 */
import { performance } from 'node:perf_hooks';
import { createBreakerDynamoDbClient, createDocumentClient } from '../../lambda/aws/dynamodb-client.js';
import { formatTable } from '../../lambda/cli/format-table.js';
import { DEFAULT_BREAKER_POLICY } from '../../lambda/core/breaker/breaker-policy.js';
import type { BreakerStore } from '../../lambda/core/breaker/breaker-store.js';
import { createBreakers } from '../../lambda/core/breaker/breakers.js';
import { accountRouteId } from '../../lambda/core/breaker/route-cooling.js';
import { defaultRoutePolicy } from '../../lambda/core/catalog/catalog.js';
import { deriveTimeouts } from '../../lambda/core/catalog/derive-timeouts.js';
import { rateLimitSchema } from '../../lambda/core/catalog/rate-limit-config-schema.js';
import type { Tier } from '../../lambda/core/dsl/types.js';
import type { LedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { routeGenerate } from '../../lambda/core/router/route-chat.js';
import type { RouteModel, RouterDeps } from '../../lambda/core/router/route-types.js';
import { withReadCache } from '../../lambda/stores/cached-breaker-store.js';
import { ensureBreakerTable } from '../../lambda/stores/create-breaker-table.js';
import { createDynamoDbBreakerStore } from '../../lambda/stores/dynamodb-breaker-store.js';
import { createMemoryBreakerStore } from '../../lambda/stores/memory-breaker-store.js';
import { systemClock, systemRandom, systemSleep } from '../../lambda/wiring/system-time.js';
import { countDynamoDbCommands } from '../dynamodb-command-count.js';
import { type DynaliteProcess, startDynaliteProcess } from './dynalite-process.js';
import { instantModel } from './instant-model.js';
import { PROBE_COST_NOTE, probeCostTable } from './probe-cost.js';

const STEADY_RATE = 50; // requests per second
const STEADY_SECONDS = 4;
const SPIKE_REQUESTS = 500;
const SPIKE_429_SHARE = 0.2;
const CACHE_MS = 1_000;
const TIERS: Tier[] = [
  {
    members: [
      { key: 'a', weight: 1 },
      { key: 'b', weight: 1 },
    ],
  },
  { members: [{ key: 'c', weight: 1 }] },
];

type StoreKind = 'memory' | 'dynamodb' | 'dynamodb+cache';
type Scenario = 'steady 50/s' | 'spike 500, 50 in flight' | 'burst 500 at once';
const SCENARIOS: readonly Scenario[] = ['steady 50/s', 'spike 500, 50 in flight', 'burst 500 at once'];
const SPIKE_IN_FLIGHT = 50;
const WARM_UP_REQUESTS = 20;

interface RunResult {
  scenario: Scenario;
  store: StoreKind;
  requests: number;
  attempts: number;
  failed: number;
  commands: Map<string, number>;
  opensTried: number;
  opensWon: number;
  storeErrors: number;
  latencies: number[];
}

/** The store under test, with its DynamoDB command counts and open attempts counted. */
async function storeFor(kind: StoreKind, dynalite: DynaliteProcess, table: string) {
  const commands = new Map<string, number>();
  const counts = { tried: 0, won: 0 };
  let store: BreakerStore = createMemoryBreakerStore();
  let close = () => {};
  if (kind !== 'memory') {
    const client = createBreakerDynamoDbClient({
      endpoint: dynalite.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
    });
    await ensureBreakerTable(client, table);
    countDynamoDbCommands(client, commands);
    const dynamo = createDynamoDbBreakerStore({ client: createDocumentClient(client), tableName: table });
    store = kind === 'dynamodb+cache' ? withReadCache(dynamo, CACHE_MS) : dynamo;
    close = () => client.destroy();
  }
  const inner = store;
  const counted: BreakerStore = {
    readPipeline: (p, now) => inner.readPipeline(p, now),
    record: (p, m, s, policy) => inner.record(p, m, s, policy),
    readRoutes: (routes, now) => inner.readRoutes(routes, now),
    coolRoute: (route, sample, policy) => inner.coolRoute(route, sample, policy),
    claimProbe: (p, m, claim) => inner.claimProbe(p, m, claim),
    startRamp: (p, m, request) => inner.startRamp(p, m, request),
    claimRouteProbe: (route, claim, keepMs) => inner.claimRouteProbe(route, claim, keepMs),
    settleRouteProbe: (route, outcome, keepMs) => inner.settleRouteProbe(route, outcome, keepMs),
    async tryOpen(p, m, request) {
      counts.tried += 1;
      const won = await inner.tryOpen(p, m, request);
      if (won) counts.won += 1;
      return won;
    },
  };
  return { store: counted, commands, counts, close };
}

async function run(scenario: Scenario, kind: StoreKind, dynalite: DynaliteProcess): Promise<RunResult> {
  const table = `bench-${scenario.replace(/\W+/g, '-')}-${kind.replace(/\W+/g, '-')}`;
  const { store, commands, counts, close } = await storeFor(kind, dynalite, table);
  const ledger: LedgerEntry[] = [];
  const storeErrors = new Map<string, number>();
  const breakers = createBreakers({
    store,
    clock: systemClock,
    policyFor: () => DEFAULT_BREAKER_POLICY,
    // The gateway's defaults: a 429 cools its account route for every pipeline (one item per route).
    routeCooling: { ...rateLimitSchema.parse({}), accountRouteOf: (key) => accountRouteId('bench', key) },
    events: {
      onStoreError: (operation, error) => {
        const name = `${operation}:${error instanceof Error ? error.name : 'unknown'}`;
        storeErrors.set(name, (storeErrors.get(name) ?? 0) + 1);
      },
    },
  });
  let measuring = false;
  const limited = () => measuring && scenario !== 'steady 50/s' && Math.random() < SPIKE_429_SHARE;
  const models = new Map<string, RouteModel>(
    ['a', 'b', 'c'].map((key) => [
      key,
      {
        model: instantModel(key, key === 'c' ? undefined : limited),
        timeouts: deriveTimeouts('bench', { timeoutMs: 10_000 }),
      },
    ]),
  );
  const deps: RouterDeps = {
    clock: systemClock,
    random: systemRandom,
    sleep: systemSleep,
    breakers,
    models: (key) => models.get(key),
    ledger: (entry) => ledger.push(entry),
  };
  const latencies: number[] = [];
  let failed = 0;
  let n = 0;
  const one = async (pipeline = 'bench') => {
    const started = performance.now();
    const result = await routeGenerate(
      {
        requestId: `r${++n}`,
        pipeline,
        tiers: TIERS,
        policy: defaultRoutePolicy(),
        stream: false,
      },
      deps,
      { messages: [{ role: 'user', content: 'hi' }] },
    );
    latencies.push(performance.now() - started);
    if (!result.ok) failed += 1;
  };

  // Warm-up on another pipeline: connections, SDK set-up and JIT are not what is measured here.
  for (let i = 0; i < WARM_UP_REQUESTS; i++) await one('warm-up');
  latencies.length = 0;
  ledger.length = 0;
  commands.clear();
  storeErrors.clear();
  counts.tried = 0;
  counts.won = 0;
  measuring = true;

  const pending: Promise<void>[] = [];
  if (scenario === 'burst 500 at once') {
    for (let i = 0; i < SPIKE_REQUESTS; i++) pending.push(one());
  } else if (scenario === 'spike 500, 50 in flight') {
    let left = SPIKE_REQUESTS;
    const worker = async () => {
      while (left-- > 0) await one();
    };
    for (let i = 0; i < SPIKE_IN_FLIGHT; i++) pending.push(worker());
  } else {
    const total = STEADY_RATE * STEADY_SECONDS;
    const start = performance.now();
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / STEADY_RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      pending.push(one());
    }
  }
  await Promise.all(pending);
  close();
  return {
    scenario,
    store: kind,
    requests: latencies.length,
    attempts: ledger.filter((e) => e.type === 'attempt').length,
    failed,
    commands,
    opensTried: counts.tried,
    opensWon: counts.won,
    storeErrors: [...storeErrors.values()].reduce((sum, v) => sum + v, 0),
    latencies,
  };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

const per = (count: number | undefined, of: number) => ((count ?? 0) / of).toFixed(2);
const ms = (value: number) => value.toFixed(2);
const plus = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(2)}`;

function report(results: RunResult[]): string {
  const baseline = new Map(results.filter((r) => r.store === 'memory').map((r) => [r.scenario, r]));
  const rows = results.map((r) => {
    const base = baseline.get(r.scenario);
    const p50 = percentile(r.latencies, 50);
    const p99 = percentile(r.latencies, 99);
    const slow = (r.commands.get('GetItem') ?? 0) + (r.commands.get('PutItem') ?? 0);
    return [
      r.scenario,
      r.store,
      String(r.requests),
      per(r.attempts, r.requests),
      r.store === 'memory' ? '-' : per(r.commands.get('Query'), r.requests),
      r.store === 'memory' ? '-' : per(r.commands.get('UpdateItem'), r.requests),
      r.store === 'memory' ? '-' : per(r.commands.get('Query'), r.attempts),
      r.store === 'memory' ? '-' : per(r.commands.get('UpdateItem'), r.attempts),
      r.store === 'memory' ? '-' : per(r.commands.get('BatchGetItem'), r.attempts),
      r.store === 'memory' ? '-' : String(slow),
      `${r.opensWon}/${r.opensTried}`,
      String(r.storeErrors),
      ms(p50),
      ms(p99),
      base && r !== base ? plus(p50 - percentile(base.latencies, 50)) : '-',
      base && r !== base ? plus(p99 - percentile(base.latencies, 99)) : '-',
    ];
  });
  const header = [
    'SCENARIO',
    'STORE',
    'REQUESTS',
    'ATTEMPTS/REQ',
    'QUERY/REQ',
    'UPDATEITEM/REQ',
    'QUERY/ATTEMPT',
    'UPDATEITEM/ATTEMPT',
    'BATCHGET/ATTEMPT',
    'GET+PUT',
    'OPENS WON/TRIED',
    'STORE ERRORS',
    'P50 MS',
    'P99 MS',
    'ADDED P50',
    'ADDED P99',
  ];
  return formatTable(header, rows);
}

async function main() {
  const dynalite = await startDynaliteProcess();
  if (process.argv.includes('--probes')) {
    try {
      process.stdout.write(`${await probeCostTable(dynalite)}\n\n`);
      process.stdout.write(PROBE_COST_NOTE);
    } finally {
      dynalite.stop();
    }
    return;
  }
  const results: RunResult[] = [];
  try {
    for (const scenario of SCENARIOS) {
      for (const kind of ['memory', 'dynamodb', 'dynamodb+cache'] as const) {
        results.push(await run(scenario, kind, dynalite));
      }
    }
  } finally {
    dynalite.stop();
  }
  process.stdout.write(`${report(results)}\n\n`);
  process.stdout.write(
    `steady: ${STEADY_RATE} requests/s for ${STEADY_SECONDS} s, all answered; spike: ${SPIKE_REQUESTS} requests, ` +
      `${SPIKE_IN_FLIGHT} in flight; burst: ${SPIKE_REQUESTS} at once; spike and burst: ` +
      `${SPIKE_429_SHARE * 100} % 429s on tier 1 of (a|b),c. Read cache ${CACHE_MS} ms.\n` +
      'BATCHGET: account-route cooling reads (one BatchGetItem for the chain, per container at most once per ' +
      'rateLimit.readCacheMs = 1000 ms); a 429 adds one conditional UpdateItem on its route item.\n' +
      'GET+PUT: read-modify-write writes (expired item, quiet spell, earlier cooling end). STORE ERRORS: ' +
      'store calls that failed (1 s timeouts); the request went on with what its process knew.\n' +
      'Latency: whole request through the router; dynalite on loopback in its own process.\n',
  );
  const failed = results.reduce((n, r) => n + r.failed, 0);
  if (failed > 0) process.stdout.write(`${failed} requests failed\n`);
}

await main();
