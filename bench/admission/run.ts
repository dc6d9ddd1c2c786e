/**
 * What admission costs per request: the admission service (`createAdmission`, real clock) over the
 * memory store and the DynamoDB store (dynalite in its own process, on loopback), with no limit,
 * one spend cap, and three limits (key spend + key requests/min + pipeline requests/min). It
 * admits and settles each request as the gateway does (settlement is off the caller's path).
 * DynamoDB commands are counted with a client middleware. Loopback latency is far below
 * DynamoDB's: the added latency is the store code and one HTTP round trip, not a forecast for AWS.
 *
 *   npm run bench:admission
 */
import { performance } from 'node:perf_hooks';
import { createBreakerDynamoDbClient, createDocumentClient } from '../../lambda/aws/dynamodb-client.js';
import { formatTable } from '../../lambda/cli/format-table.js';
import { createAdmission } from '../../lambda/core/admission/admission.js';
import type { AdmissionStore } from '../../lambda/core/admission/admission-store.js';
import { admissionSchema } from '../../lambda/core/catalog/admission-config-schema.js';
import { ensureBreakerTable } from '../../lambda/stores/create-breaker-table.js';
import { createDynamoDbAdmissionStore } from '../../lambda/stores/dynamodb-admission-store.js';
import { createMemoryAdmissionStore } from '../../lambda/stores/memory-admission-store.js';
import { systemClock } from '../../lambda/wiring/system-time.js';
import { startDynaliteProcess } from '../breaker-store/dynalite-process.js';
import { countDynamoDbCommands } from '../dynamodb-command-count.js';

const SEQUENTIAL = 500;
const CONCURRENT = 50;
const ROUNDS = 10;
const RESERVATION = {
  inputChars: 400,
  maxOutputTokens: 500,
  price: { inputPerMTok: 0.15, outputPerMTok: 0.6 },
};
const LIMIT_SETS = {
  none: {},
  'key spend': { keys: { k: { usdPerDay: 1_000 } } },
  'key spend+rpm, pipeline rpm': {
    keys: { k: { usdPerDay: 1_000, requestsPerMinute: 1_000_000 } },
    pipelines: { p: { requestsPerMinute: 1_000_000 } },
  },
} as const;

type Counts = Map<string, number>;

async function storeFor(kind: 'memory' | 'dynamodb', endpoint: string, table: string) {
  const counts: Counts = new Map();
  if (kind === 'memory') return { store: createMemoryAdmissionStore(systemClock), counts, close() {} };
  const client = createBreakerDynamoDbClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
  });
  await ensureBreakerTable(client, table);
  countDynamoDbCommands(client, counts);
  const store: AdmissionStore = createDynamoDbAdmissionStore({
    client: createDocumentClient(client),
    tableName: table,
  });
  return { store, counts, close: () => client.destroy() };
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

async function measure(store: AdmissionStore, counts: Counts, limits: object, concurrent: boolean) {
  const settings = admissionSchema.parse(limits);
  const admission = createAdmission({
    store,
    clock: systemClock,
    settings: async () => settings,
    onStoreFailure() {},
  });
  const latencies: number[] = [];
  const calls = { admit: new Map<string, number>(), settle: new Map<string, number>() };
  const snapshot = () => new Map(counts);
  const diff = (into: Map<string, number>, before: Counts) => {
    for (const [k, v] of counts) into.set(k, (into.get(k) ?? 0) + v - (before.get(k) ?? 0));
  };
  const one = async () => {
    const start = performance.now();
    const outcome = await admission.admit({ keyName: 'k', pipeline: 'p', reservation: RESERVATION });
    latencies.push(performance.now() - start);
    return outcome;
  };
  const total = concurrent ? CONCURRENT * ROUNDS : SEQUENTIAL;
  for (let done = 0; done < total; ) {
    const batch = concurrent ? CONCURRENT : 1;
    const before = snapshot();
    const outcomes = await Promise.all(Array.from({ length: batch }, one));
    diff(calls.admit, before);
    const beforeSettle = snapshot();
    await Promise.all(
      outcomes.map((o) => (o.ok ? admission.settle(o.ticket, { tokens: 300, costNano: 90_000 }) : undefined)),
    );
    diff(calls.settle, beforeSettle);
    done += batch;
  }
  latencies.sort((a, b) => a - b);
  const per = (m: Map<string, number>, name: string) => ((m.get(name) ?? 0) / total).toFixed(2);
  return { total, latencies, per: (phase: 'admit' | 'settle', name: string) => per(calls[phase], name) };
}

const dynalite = await startDynaliteProcess();
const rows: string[][] = [];
let tables = 0;
try {
  for (const kind of ['memory', 'dynamodb'] as const) {
    for (const [label, limits] of Object.entries(LIMIT_SETS)) {
      for (const concurrent of [false, true]) {
        const { store, counts, close } = await storeFor(
          kind,
          dynalite.endpoint,
          `admission-bench-${++tables}`,
        );
        const r = await measure(store, counts, limits, concurrent);
        close();
        const dynamo = kind === 'dynamodb';
        rows.push([
          concurrent ? `${CONCURRENT} in flight` : 'one at a time',
          kind,
          label,
          String(r.total),
          dynamo ? r.per('admit', 'Query') : '-',
          dynamo ? r.per('admit', 'UpdateItem') : '-',
          dynamo ? r.per('settle', 'UpdateItem') : '-',
          quantile(r.latencies, 0.5).toFixed(3),
          quantile(r.latencies, 0.99).toFixed(3),
        ]);
      }
    }
  }
} finally {
  dynalite.stop();
}
console.log(
  `admission cost per request — Node ${process.version}, dynalite on loopback in its own process\n`,
);
console.log(
  formatTable(
    [
      'SHAPE',
      'STORE',
      'LIMITS',
      'REQUESTS',
      'QUERY/REQ',
      'UPDATE/REQ (ADMIT)',
      'UPDATE/REQ (SETTLE)',
      'ADMIT P50 MS',
      'ADMIT P99 MS',
    ],
    rows,
  ),
);
