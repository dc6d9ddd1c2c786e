import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../lambda/aws/dynamodb-client.js';
import { type Admission, createAdmission } from '../../../lambda/core/admission/admission.js';
import type { AdmissionStore } from '../../../lambda/core/admission/admission-store.js';
import { dayBucket, utcDay } from '../../../lambda/core/admission/admission-windows.js';
import {
  type AdmissionSettings,
  admissionSchema,
} from '../../../lambda/core/catalog/admission-config-schema.js';
import { createDynamoDbAdmissionStore } from '../../../lambda/stores/dynamodb-admission-store.js';
import { createMemoryAdmissionStore } from '../../../lambda/stores/memory-admission-store.js';
import {
  DYNALITE_ENV,
  openBreakerTable,
  type RunningDynalite,
  startDynalite,
} from '../../helpers/dynalite.js';
import { createFakeClock, type FakeClock } from '../../helpers/fake-clock.js';

const DYNALITE_KEYS = {
  accessKeyId: DYNALITE_ENV.AWS_ACCESS_KEY_ID,
  secretAccessKey: DYNALITE_ENV.AWS_SECRET_ACCESS_KEY,
};
// A slice start, so the window's edges fall on round numbers.
const START = 1_700_000_000_000;
// 1000 output tokens at $100 per million: exactly $0.10 reserved per request.
const TEN_CENTS = { inputChars: 0, maxOutputTokens: 1_000, price: { inputPerMTok: 0, outputPerMTok: 100 } };

let dynalite: RunningDynalite;
beforeAll(async () => {
  dynalite = await startDynalite();
});
afterAll(() => dynalite.stop());

type Table = Awaited<ReturnType<typeof openBreakerTable>>;
let table: Table;
let clock: FakeClock;
beforeEach(async () => {
  table = await openBreakerTable(dynalite);
  clock = createFakeClock(START);
});
afterEach(() => table.close());

// The suite is about what the store promises, not the gateway's 1 s call bound: its own client
// waits as long as a busy dynalite needs for a burst of 100 on one item, and never resends.
const clients: DynamoDBClient[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.destroy();
});
function patientClient() {
  const client = new DynamoDBClient({
    endpoint: dynalite.endpoint,
    region: 'us-east-1',
    credentials: DYNALITE_KEYS,
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler({ requestTimeout: 30_000 }),
  });
  clients.push(client);
  return createDocumentClient(client);
}

const stores: Array<[string, () => AdmissionStore]> = [
  ['memory', () => createMemoryAdmissionStore(clock)],
  ['dynamodb', () => createDynamoDbAdmissionStore({ client: patientClient(), tableName: table.tableName })],
];

function admissionOn(store: AdmissionStore, settings: AdmissionSettings): Admission {
  return createAdmission({
    store,
    clock,
    settings: async () => settings,
    onStoreFailure: () => {
      throw new Error('no store failure expected');
    },
  });
}

const request = (keyName: string, pipeline?: string) => ({ keyName, pipeline, reservation: TEN_CENTS });

describe.each(stores)('%s admission store', (_name, open) => {
  it('admits 10 of 50 concurrent requests under a $1.00 cap at $0.10 each, and settles to the exact spend', async () => {
    const store = open();
    const admission = admissionOn(store, admissionSchema.parse({ keys: { k: { usdPerDay: 1 } } }));
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => admission.admit(request('k'))));
    const admitted = outcomes.flatMap((o) => (o.ok ? [o.ticket] : []));
    expect(admitted).toHaveLength(10);
    const refused = outcomes.find((o) => !o.ok);
    expect(refused?.ok === false && refused.refusal).toMatchObject({
      reason: 'budget',
      limit: { field: 'admission.keys.k.usdPerDay' },
      resetAt: Date.parse('2023-11-15T00:00:00Z'),
    });
    // Each settles to a different actual cost: the counter ends at their exact sum.
    const actual = admitted.map((_, i) => 1_234_567 * (i + 1));
    await Promise.all(admitted.map((t, i) => admission.settle(t, { tokens: 0, costNano: actual[i] ?? 0 })));
    const day = await store.read('key:k:spend', dayBucket(utcDay(START)), START);
    expect(day.get(dayBucket(utcDay(START)))).toBe(actual.reduce((a, b) => a + b, 0));
  });

  it('admits 60 of a burst of 100 under 60 requests a minute, and the next one when the minute has passed', async () => {
    const admission = admissionOn(open(), admissionSchema.parse({ keys: { k: { requestsPerMinute: 60 } } }));
    const burst = await Promise.all(Array.from({ length: 100 }, () => admission.admit(request('k'))));
    expect(burst.filter((o) => o.ok)).toHaveLength(60);
    const refused = burst.find((o) => !o.ok);
    expect(refused?.ok === false && refused.refusal).toMatchObject({
      reason: 'rate',
      resetAt: START + 60_000,
    });
    clock.set(START + 59_999);
    expect((await admission.admit(request('k'))).ok).toBe(false);
    clock.set(START + 60_000);
    expect((await admission.admit(request('k'))).ok).toBe(true);
  });

  it('gives a reservation back when the request fails or is cancelled before any cost', async () => {
    const admission = admissionOn(open(), admissionSchema.parse({ keys: { k: { usdPerDay: 0.1 } } }));
    const first = await admission.admit(request('k'));
    expect((await admission.admit(request('k'))).ok).toBe(false);
    if (!first.ok) throw new Error('first request refused');
    await admission.settle(first.ticket, { tokens: 0, costNano: 0 });
    expect((await admission.admit(request('k'))).ok).toBe(true);
  });

  it('takes nothing from any limit when one of them refuses', async () => {
    const settings = admissionSchema.parse({
      keys: { k: { usdPerDay: 1, requestsPerMinute: 100 } },
      pipelines: { p: { requestsPerMinute: 1 } },
    });
    const admission = admissionOn(open(), settings);
    expect((await admission.admit(request('k', 'p'))).ok).toBe(true);
    const second = await admission.admit(request('k', 'p'));
    expect(second.ok === false && second.refusal.limit.field).toBe('admission.pipelines.p.requestsPerMinute');
    // The key's spend got its $0.10 back: nine more fit on another pipeline, not ten.
    const others = await Promise.all(Array.from({ length: 10 }, () => admission.admit(request('k'))));
    expect(others.filter((o) => o.ok)).toHaveLength(9);
  });

  it('settles tokens to what the attempts used', async () => {
    const admission = admissionOn(open(), admissionSchema.parse({ keys: { k: { tokensPerMinute: 1_500 } } }));
    const first = await admission.admit(request('k'));
    expect((await admission.admit(request('k'))).ok).toBe(false);
    if (!first.ok) throw new Error('first request refused');
    expect(first.ticket.reserved.tokens).toBe(1_000);
    await admission.settle(first.ticket, { tokens: 500, costNano: 0 });
    expect((await admission.admit(request('k'))).ok).toBe(true);
  });

  it('tells the budget left after the reservation', async () => {
    const admission = admissionOn(open(), admissionSchema.parse({ keys: { k: { usdPerDay: 0.25 } } }));
    const first = await admission.admit(request('k'));
    expect(first.ok && first.ticket.budgetRemainingUsd).toBeCloseTo(0.15, 9);
  });
});

describe('dynamodb admission store costs', () => {
  it('writes once per limit to admit and once per token or spend limit to settle', async () => {
    const store = createDynamoDbAdmissionStore({
      client: createDocumentClient(table.client),
      tableName: table.tableName,
    });
    const settings = admissionSchema.parse({ keys: { k: { usdPerDay: 5, requestsPerMinute: 10 } } });
    const admission = admissionOn(store, settings);
    table.counts.clear();
    const outcome = await admission.admit(request('k'));
    expect(Object.fromEntries(table.counts)).toEqual({ UpdateItemCommand: 2, QueryCommand: 1 });
    table.counts.clear();
    if (!outcome.ok) throw new Error('refused');
    await admission.settle(outcome.ticket, { tokens: 10, costNano: 5 });
    expect(Object.fromEntries(table.counts)).toEqual({ UpdateItemCommand: 1 });
  });
});
