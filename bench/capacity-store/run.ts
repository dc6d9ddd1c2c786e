/**
 * `npm run bench:capacity-store`: what a shared bulkhead and a shared declared quota cost in
 * DynamoDB calls per attempt (docs/design.md#bulkheads-and-quotas-in-the-breaker-table). The real
 * router over instant models (`a,b`, every attempt answered by `a`), breakers in DynamoDB
 * (dynalite in its own process, on loopback) without and with a 1 s read cache, and capacity
 * counted in the same table. Commands are counted by name with a client middleware.
 *
 *   npm run bench:capacity-store
 */
import { createBreakerDynamoDbClient, createDocumentClient } from '../../lambda/aws/dynamodb-client.js';
import { DEFAULT_BREAKER_POLICY } from '../../lambda/core/breaker/breaker-policy.js';
import { createBreakers } from '../../lambda/core/breaker/breakers.js';
import { createRouteCapacity } from '../../lambda/core/capacity/create-route-capacity.js';
import { createSharedInFlight } from '../../lambda/core/capacity/in-flight.js';
import { capacitySchema } from '../../lambda/core/catalog/capacity-config-schema.js';
import { defaultRoutePolicy } from '../../lambda/core/catalog/catalog.js';
import { deriveTimeouts } from '../../lambda/core/catalog/derive-timeouts.js';
import type { Tier } from '../../lambda/core/dsl/types.js';
import { routeGenerate } from '../../lambda/core/router/route-chat.js';
import type { RouteModel, RouterDeps } from '../../lambda/core/router/route-types.js';
import { withReadCache } from '../../lambda/stores/cached-breaker-store.js';
import { ensureBreakerTable } from '../../lambda/stores/create-breaker-table.js';
import { createDynamoDbAdmissionStore } from '../../lambda/stores/dynamodb-admission-store.js';
import { createDynamoDbBreakerStore } from '../../lambda/stores/dynamodb-breaker-store.js';
import { systemClock, systemRandom, systemSleep } from '../../lambda/wiring/system-time.js';
import { startDynaliteProcess } from '../breaker-store/dynalite-process.js';
import { instantModel } from '../breaker-store/instant-model.js';
import { countDynamoDbCommands } from '../dynamodb-command-count.js';

const REQUESTS = 200;
const TIERS: Tier[] = [{ members: [{ key: 'a', weight: 1 }] }, { members: [{ key: 'b', weight: 1 }] }];

const VARIANTS = [
  { name: 'breakers only', capacity: undefined },
  { name: '+ shared bulkhead (route a)', capacity: { shared: true, routes: { a: { maxInFlight: 1_000 } } } },
  {
    name: '+ shared quota (requestsPerMinute)',
    capacity: { shared: true, quotas: { acct: { 'model-a': { requestsPerMinute: 1_000_000 } } } },
  },
  {
    name: '+ both',
    capacity: {
      shared: true,
      routes: { a: { maxInFlight: 1_000 } },
      quotas: { acct: { 'model-a': { requestsPerMinute: 1_000_000 } } },
    },
  },
] as const;

async function run(endpoint: string, variant: (typeof VARIANTS)[number], cacheMs: number) {
  const table = `capacity-${variant.name.replace(/\W+/g, '-')}-${cacheMs}`;
  const client = createBreakerDynamoDbClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
  });
  await ensureBreakerTable(client, table);
  const commands = countDynamoDbCommands(client);
  const documents = createDocumentClient(client);
  const store = withReadCache(createDynamoDbBreakerStore({ client: documents, tableName: table }), cacheMs);
  const settings = capacitySchema.parse(variant.capacity ?? {});
  const admissionStore = createDynamoDbAdmissionStore({ client: documents, tableName: table });
  const models = new Map<string, RouteModel>(
    ['a', 'b'].map((key) => [
      key,
      { model: instantModel(key), timeouts: deriveTimeouts('bench', { timeoutMs: 10_000 }) },
    ]),
  );
  const deps: RouterDeps = {
    clock: systemClock,
    random: systemRandom,
    sleep: systemSleep,
    breakers: createBreakers({ store, clock: systemClock, policyFor: () => DEFAULT_BREAKER_POLICY }),
    models: (key) => models.get(key),
    ledger: () => {},
    capacity: variant.capacity
      ? createRouteCapacity({
          settings,
          clock: systemClock,
          inFlight: createSharedInFlight(admissionStore, settings.leaseMs),
          quotaStore: admissionStore,
          routeOf: (key) => ({ provider: 'acct', model: `model-${key}` }),
        })
      : undefined,
  };
  const request = (i: number) =>
    routeGenerate(
      { requestId: `r${i}`, pipeline: 'p', tiers: TIERS, policy: defaultRoutePolicy(), stream: false },
      deps,
      { messages: [{ role: 'user', content: 'hi' }] },
    );
  await request(-1);
  commands.clear();
  let attempts = 0;
  for (let i = 0; i < REQUESTS; i++) attempts += (await request(i)).attempts.length;
  // Give-backs are written without being awaited by the request: let them land before counting.
  await new Promise((resolve) => setTimeout(resolve, 200));
  client.destroy();
  return { attempts, commands };
}

async function main() {
  const dynalite = await startDynaliteProcess();
  const rows: string[][] = [];
  const names = ['Query', 'GetItem', 'UpdateItem', 'PutItem'];
  try {
    for (const cacheMs of [0, 1_000]) {
      for (const variant of VARIANTS) {
        const { attempts, commands } = await run(dynalite.endpoint, variant, cacheMs);
        const per = (n: number) => (n / attempts).toFixed(2);
        const total = [...commands.values()].reduce((a, b) => a + b, 0);
        rows.push([
          `${variant.name}${cacheMs ? ', 1 s read cache' : ''}`,
          String(attempts),
          ...names.map((name) => per(commands.get(name) ?? 0)),
          per(total),
        ]);
      }
    }
  } finally {
    await dynalite.stop();
  }
  const header = ['breaker table use', 'attempts', ...names.map((n) => `${n}/attempt`), 'calls/attempt'];
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  process.stdout.write(
    `capacity-store: ${REQUESTS} sequential requests, chain a,b, every attempt answered by a (dynalite on loopback)\n\n` +
      `${all.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ')).join('\n')}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench:capacity-store failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exitCode = 1;
});
