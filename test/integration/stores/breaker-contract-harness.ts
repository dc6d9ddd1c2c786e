import { type BreakerPolicy, DEFAULT_BREAKER_POLICY } from '../../../lambda/core/breaker/breaker-policy.js';
import {
  type AttemptSample,
  EMPTY_SNAPSHOT,
  isCooling,
  isOpen,
  windowCounts,
} from '../../../lambda/core/breaker/breaker-state.js';
import type { BreakerStore } from '../../../lambda/core/breaker/breaker-store.js';
import { type BreakerOpened, createBreakers } from '../../../lambda/core/breaker/breakers.js';
import { withReadCache } from '../../../lambda/stores/cached-breaker-store.js';
import { createMemoryBreakerStore } from '../../../lambda/stores/memory-breaker-store.js';
import { openBreakerTable, type RunningDynalite } from '../../helpers/dynalite.js';
import type { FakeClock } from '../../helpers/fake-clock.js';

/** A fresh, empty store, and more handles on the same state (other Lambda containers). */
export interface StoreFixture {
  store: BreakerStore;
  /** Another handle on the same state: for DynamoDB a new client, i.e. another container. */
  connect(): BreakerStore;
  close(): void;
}

/** Read-cache lifetime of the cached variant, in ms. */
export const CACHE_MS = 1_000;

/** The stores the contract runs against, by name. `dynalite` is read when a fixture is opened. */
export function storeFixtures(dynalite: () => RunningDynalite) {
  return [
    {
      name: 'memory',
      open: async (): Promise<StoreFixture> => {
        const store = createMemoryBreakerStore();
        return { store, connect: () => store, close() {} };
      },
    },
    {
      name: 'dynamodb',
      open: async (): Promise<StoreFixture> => {
        const table = await openBreakerTable(dynalite());
        return { store: table.store, connect: () => table.connect().store, close: table.close };
      },
    },
    {
      name: 'dynamodb with a read cache',
      open: async (): Promise<StoreFixture> => {
        const table = await openBreakerTable(dynalite());
        return {
          store: withReadCache(table.store, CACHE_MS),
          connect: () => withReadCache(table.connect().store, CACHE_MS),
          close: table.close,
        };
      },
    },
  ];
}

/** A small window (15 s, buckets of 1 s) so tests can step over it; otherwise the defaults. */
export const POLICY: BreakerPolicy = { ...DEFAULT_BREAKER_POLICY, windowMs: 15_000, openMs: 60_000 };

/** One container's breakers over `store`, with what they reported. */
export function containerOn(store: BreakerStore, clock: FakeClock, policy: BreakerPolicy = POLICY) {
  const opened: BreakerOpened[] = [];
  const storeErrors: string[] = [];
  const breakers = createBreakers({
    store,
    clock,
    policyFor: () => policy,
    events: { onOpened: (e) => opened.push(e), onStoreError: (op) => storeErrors.push(op) },
  });
  return {
    breakers,
    opened,
    storeErrors,
    record(
      model: string,
      outcome: AttemptSample['outcome'],
      extra: Partial<AttemptSample> = {},
      pipeline = 'p',
    ) {
      return breakers.record(pipeline, model, { at: clock.now(), outcome, ...extra });
    },
    /** What the router would see for `model`, read through the store. */
    async state(model: string, pipeline = 'p') {
      const snapshot = (await breakers.read(pipeline)).get(model) ?? EMPTY_SNAPSHOT;
      const now = clock.now();
      const open = isOpen(snapshot, now);
      return {
        open,
        reason: open ? snapshot.openReason : undefined,
        openUntil: open ? snapshot.openUntil : undefined,
        cooling: isCooling(snapshot, now),
        coolUntil: isCooling(snapshot, now) ? snapshot.coolUntil : undefined,
        streak: snapshot.consecutive429,
        ...windowCounts(snapshot, now, policy),
      };
    },
  };
}
