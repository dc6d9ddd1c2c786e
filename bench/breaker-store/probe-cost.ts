/**
 * What the probe gate costs in store calls (docs/design.md#breakers): five pipelines, each in its
 * own container (its own DynamoDB client on one dynalite table), `primary,fallback` on recovery
 * `ramp`, one request a second per pipeline on a virtual clock; the primary answers 503 for 60 s,
 * then is healthy. Once with the primary's breakers probing per pipeline (no account route, as
 * before), once sharing the probe per account route. Store calls are counted per request and
 * split by whether the request carried a probe.
 *
 *   npm run bench:breaker-store -- --probes
 */
import { createBreakerDynamoDbClient, createDocumentClient } from '../../lambda/aws/dynamodb-client.js';
import { formatTable } from '../../lambda/cli/format-table.js';
import { DEFAULT_BREAKER_POLICY } from '../../lambda/core/breaker/breaker-policy.js';
import { createBreakers } from '../../lambda/core/breaker/breakers.js';
import { accountRouteId } from '../../lambda/core/breaker/route-cooling.js';
import { defaultRoutePolicy } from '../../lambda/core/catalog/catalog.js';
import { deriveTimeouts } from '../../lambda/core/catalog/derive-timeouts.js';
import type { ChatModel } from '../../lambda/core/chat/chat-model.js';
import { ProviderError } from '../../lambda/core/failures/provider-error.js';
import type { LedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { routeGenerate } from '../../lambda/core/router/route-chat.js';
import type { RouteModel, RouterDeps } from '../../lambda/core/router/route-types.js';
import { ensureBreakerTable } from '../../lambda/stores/create-breaker-table.js';
import { createDynamoDbBreakerStore } from '../../lambda/stores/dynamodb-breaker-store.js';
import { seededRandom } from '../../lambda/wiring/seeded-random.js';
import { systemSleep } from '../../lambda/wiring/system-time.js';
import { countDynamoDbCommands } from '../dynamodb-command-count.js';
import type { DynaliteProcess } from './dynalite-process.js';
import { instantModel } from './instant-model.js';

const PIPELINES = 5;
const OUTAGE_MS = 60_000;
const RUN_MS = 150_000;
const TIERS = [{ members: [{ key: 'primary', weight: 1 }] }, { members: [{ key: 'fallback', weight: 1 }] }];

/** The primary: 503 before `recoveredAt`, an instant answer after. */
function outageModel(now: () => number, recoveredAt: number): ChatModel {
  const healthy = instantModel('primary');
  const down = async () => {
    throw new ProviderError({
      provider: 'bench',
      model: 'primary',
      failureClass: 'unavailable',
      status: 503,
      message: 'bench outage',
    });
  };
  return { ...healthy, generate: (...args) => (now() < recoveredAt ? down() : healthy.generate(...args)) };
}

interface Tally {
  requests: number;
  attempts: number;
  calls: Map<string, number>;
}

const emptyTally = (): Tally => ({ requests: 0, attempts: 0, calls: new Map() });

async function run(shared: boolean, dynalite: DynaliteProcess) {
  const start = Date.now();
  let now = start;
  const table = `probe-cost-${shared ? 'shared' : 'per-pipeline'}`;
  const policy = { ...DEFAULT_BREAKER_POLICY, recovery: 'ramp' as const };
  const models = new Map<string, RouteModel>([
    [
      'primary',
      {
        model: outageModel(() => now, start + OUTAGE_MS),
        timeouts: deriveTimeouts('bench', { timeoutMs: 10_000 }),
      },
    ],
    [
      'fallback',
      { model: instantModel('fallback'), timeouts: deriveTimeouts('bench', { timeoutMs: 10_000 }) },
    ],
  ]);
  const tallies = { probe: emptyTally(), other: emptyTally() };
  let probesIntoOutage = 0;
  const containers = [];
  for (let p = 0; p < PIPELINES; p++) {
    const client = createBreakerDynamoDbClient({
      endpoint: dynalite.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
    });
    if (p === 0) await ensureBreakerTable(client, table);
    const commands = countDynamoDbCommands(client);
    const ledger: LedgerEntry[] = [];
    const deps: RouterDeps = {
      clock: { now: () => now },
      random: seededRandom(p),
      // Real timers for the attempt timeouts (10 s: never reached by instant answers).
      sleep: systemSleep,
      breakers: createBreakers({
        store: createDynamoDbBreakerStore({ client: createDocumentClient(client), tableName: table }),
        clock: { now: () => now },
        policyFor: () => policy,
        routeCooling: {
          coolMs: 5_000,
          readCacheMs: 1_000,
          accountRouteOf: (key) => (shared || key !== 'primary' ? accountRouteId('bench', key) : undefined),
        },
      }),
      models: (key) => models.get(key),
      ledger: (entry) => ledger.push(entry),
    };
    containers.push({ client, commands, ledger, deps });
  }
  for (let t = 0; t < RUN_MS; t += 1_000) {
    for (const [p, c] of containers.entries()) {
      now = start + t + p * 200;
      const before = new Map(c.commands);
      const seen = c.ledger.length;
      await routeGenerate(
        {
          requestId: `r-${t}-${p}`,
          pipeline: `pipeline-${p}`,
          tiers: TIERS,
          policy: defaultRoutePolicy(),
          stream: false,
        },
        c.deps,
        { messages: [{ role: 'user', content: 'hi' }] },
      );
      const attempts = c.ledger.slice(seen).filter((e) => e.type === 'attempt');
      const probe = attempts.some((e) => e.type === 'attempt' && e.recovery === 'probe');
      probesIntoOutage += attempts.filter(
        (e) => e.type === 'attempt' && e.recovery === 'probe' && e.outcome !== 'ok',
      ).length;
      const tally = probe ? tallies.probe : tallies.other;
      tally.requests += 1;
      tally.attempts += attempts.length;
      for (const [name, n] of c.commands)
        tally.calls.set(name, (tally.calls.get(name) ?? 0) + n - (before.get(name) ?? 0));
    }
  }
  for (const c of containers) c.client.destroy();
  return { shared, tallies, probesIntoOutage };
}

/** What the probe-cost table's columns mean. */
export const PROBE_COST_NOTE =
  `${PIPELINES} pipelines, one container each, 1 request/s each for ${RUN_MS / 1000} s (virtual); primary,fallback on recovery ramp; ` +
  `the primary answers 503 for the first ${OUTAGE_MS / 1000} s. Store calls per attempt, split by whether the request carried a probe ` +
  '(a failed probe is followed by the fallback attempt in the same request).\n';

/** The table of both runs. */
export async function probeCostTable(dynalite: DynaliteProcess): Promise<string> {
  const rows: string[][] = [];
  for (const shared of [false, true]) {
    const r = await run(shared, dynalite);
    for (const [kind, tally] of Object.entries(r.tallies)) {
      const per = (name: string) => ((tally.calls.get(name) ?? 0) / Math.max(1, tally.attempts)).toFixed(2);
      rows.push([
        shared ? 'shared per account route' : 'per pipeline (before)',
        kind === 'probe' ? 'with a probe' : 'without',
        String(tally.requests),
        (tally.attempts / Math.max(1, tally.requests)).toFixed(2),
        per('Query'),
        per('UpdateItem'),
        per('BatchGetItem'),
        String(tally.calls.get('UpdateItem') ?? 0),
        kind === 'probe' ? String(r.probesIntoOutage) : '',
      ]);
    }
  }
  return formatTable(
    [
      'PROBES',
      'REQUESTS',
      'COUNT',
      'ATTEMPTS/REQ',
      'QUERY/ATTEMPT',
      'UPDATEITEM/ATTEMPT',
      'BATCHGET/ATTEMPT',
      'UPDATEITEM ALL',
      'PROBES INTO OUTAGE',
    ],
    rows,
  );
}
