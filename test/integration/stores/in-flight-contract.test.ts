import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../lambda/aws/dynamodb-client.js';
import type { AdmissionStore } from '../../../lambda/core/admission/admission-store.js';
import {
  createMemoryInFlight,
  createSharedInFlight,
  type InFlightCounter,
} from '../../../lambda/core/capacity/in-flight.js';
import { createQuotaCounter } from '../../../lambda/core/capacity/quota-counter.js';
import { createDynamoDbAdmissionStore } from '../../../lambda/stores/dynamodb-admission-store.js';
import { createMemoryAdmissionStore } from '../../../lambda/stores/memory-admission-store.js';
import { openBreakerTable, type RunningDynalite, startDynalite } from '../../helpers/dynalite.js';
import { createFakeClock, type FakeClock } from '../../helpers/fake-clock.js';

const LEASE_MS = 60_000;
// A lease period's start, so the periods' edges fall on round numbers.
const START = 1_700_000_040_000 - (1_700_000_040_000 % LEASE_MS);

let dynalite: RunningDynalite;
beforeAll(async () => {
  dynalite = await startDynalite();
});
afterAll(() => dynalite.stop());
const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** The same state, seen through another container's admission store (for quota counters). */
const stores: { name: string; open(clock: FakeClock): Promise<() => AdmissionStore> }[] = [
  {
    name: 'memory admission store',
    async open(clock) {
      const store = createMemoryAdmissionStore(clock);
      return () => store;
    },
  },
  {
    name: 'DynamoDB breaker table',
    async open() {
      const table = await openBreakerTable(dynalite);
      closers.push(table.close);
      return () =>
        createDynamoDbAdmissionStore({
          client: createDocumentClient(table.connect().client),
          tableName: table.tableName,
        });
    },
  },
];

describe.each(stores)('declared quota counter: $name', ({ open }) => {
  const limit = { scope: 'route', name: 'acct/model-a', kind: 'requests', cap: 5, field: 'q' } as const;

  it('of 20 takes at once from four containers against 5 a minute, exactly 5 pass; when their slice leaves the window there is room again', async () => {
    const clock = createFakeClock(START);
    const store = await open(clock);
    const containers = Array.from({ length: 4 }, () => createQuotaCounter(store()));
    const taken = await Promise.all(
      Array.from({ length: 20 }, (_, i) => containers[i % 4]?.take(limit, 1, clock.now())),
    );
    expect(taken.filter((t) => t?.ok)).toHaveLength(5);
    // The window is the current 2 s slice and the thirty before it: START's slice leaves it 62 s on.
    expect(taken.find((t) => t && !t.ok)).toEqual({ ok: false, resetAt: START + 62_000 });
    // Ten seconds on, the container's cached earlier slices still hold the five.
    clock.set(START + 10_000);
    expect((await containers[0]?.take(limit, 1, clock.now()))?.ok).toBe(false);
    clock.set(START + 61_999);
    expect((await containers[0]?.take(limit, 1, clock.now()))?.ok).toBe(false);
    clock.set(START + 62_000);
    expect((await containers[0]?.take(limit, 1, clock.now()))?.ok).toBe(true);
  });
});

interface Fixture {
  clock: FakeClock;
  /** A lease taken at START and never given back: still counted at `stillAt`, no longer at `freeAt` (ms after START). */
  lapse: { stillAt: number; freeAt: number };
  /** Another container's counter on the same state. */
  counter(): InFlightCounter;
}

/** A shared lease counts in its own period and the next: taken at a period's start, for two periods. */
const SHARED_LAPSE = { stillAt: 2 * LEASE_MS - 1, freeAt: 2 * LEASE_MS };

const fixtures: { name: string; open(): Promise<Fixture> }[] = [
  {
    name: 'memory (one process)',
    async open() {
      const clock = createFakeClock(START);
      const counter = createMemoryInFlight(LEASE_MS);
      return { clock, lapse: { stillAt: LEASE_MS - 1, freeAt: LEASE_MS }, counter: () => counter };
    },
  },
  {
    name: 'shared, on a memory admission store',
    async open() {
      const clock = createFakeClock(START);
      const store = createMemoryAdmissionStore(clock);
      return { clock, lapse: SHARED_LAPSE, counter: () => createSharedInFlight(store, LEASE_MS) };
    },
  },
  {
    name: 'shared, on the DynamoDB breaker table',
    async open() {
      const clock = createFakeClock(START);
      const table = await openBreakerTable(dynalite);
      closers.push(table.close);
      const store = (): AdmissionStore =>
        createDynamoDbAdmissionStore({
          client: createDocumentClient(table.connect().client),
          tableName: table.tableName,
        });
      return { clock, lapse: SHARED_LAPSE, counter: () => createSharedInFlight(store(), LEASE_MS) };
    },
  },
];

describe.each(fixtures)('in-flight counter: $name', ({ open }) => {
  it('of 20 takes at once against a limit of 5, from four containers, exactly 5 are granted', async () => {
    const { clock, counter } = await open();
    const containers = Array.from({ length: 4 }, () => counter());
    const taken = await Promise.all(
      Array.from({ length: 20 }, (_, i) => containers[i % 4]?.take('route:a', 5, clock.now())),
    );
    expect(taken.filter(Boolean)).toHaveLength(5);
  });

  it('a slot given back can be taken again; another counter name is independent', async () => {
    const { clock, counter } = await open();
    const c = counter();
    const first = await c.take('route:a', 1, clock.now());
    expect(first).toBeDefined();
    expect(await c.take('route:a', 1, clock.now())).toBeUndefined();
    expect(await c.take('route:b', 1, clock.now())).toBeDefined();
    await first?.();
    expect(await counter().take('route:a', 1, clock.now())).toBeDefined();
  });

  it('a lease never given back still counts until it lapses, then frees itself', async () => {
    const { clock, counter, lapse } = await open();
    expect(await counter().take('route:a', 1, clock.now())).toBeDefined();
    clock.set(START + lapse.stillAt);
    expect(await counter().take('route:a', 1, clock.now())).toBeUndefined();
    clock.set(START + lapse.freeAt);
    expect(await counter().take('route:a', 1, clock.now())).toBeDefined();
  });
});
