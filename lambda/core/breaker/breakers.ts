import { setBounded } from '../bounded-map.js';
import type { Clock } from '../time.js';
import { createAccountCooling } from './account-cooling.js';
import type { BreakerPolicy } from './breaker-policy.js';
import {
  type AttemptSample,
  applyOpening,
  applySample,
  type BreakerSnapshot,
  EMPTY_SNAPSHOT,
  isRecorded,
  type OpenReason,
  openingReason,
} from './breaker-state.js';
import type { BreakerStore } from './breaker-store.js';
import type { RouteCooling } from './route-cooling.js';

/** Reported once per opening, by the one writer that opened the breaker. */
export interface BreakerOpened {
  pipeline: string;
  model: string;
  reason: OpenReason;
  /** Ms since epoch. */
  openUntil: number;
  /** Our credential was refused or the model is gone: a person should look (ERROR log + metric). */
  alert: boolean;
}

export interface BreakerEvents {
  onOpened?(event: BreakerOpened): void;
  /** The store failed; the router carries on with what this process knows. */
  onStoreError?(operation: 'read' | 'record' | 'open' | 'read-routes' | 'cool-route', error: unknown): void;
}

/** Account-route cooling (config `rateLimit`, docs/concepts.md#account-route-cooling). */
export interface RouteCoolingOptions {
  /** The account route id (`accountRouteId`) a route key calls; undefined: it cools nothing shared. */
  accountRouteOf(routeKey: string): string | undefined;
  /** Cooling after a 429 without `Retry-After`, in ms. */
  coolMs: number;
  /** How long a container reuses its read of account-route cooling, in ms. */
  readCacheMs: number;
}

export interface BreakersOptions {
  store: BreakerStore;
  clock: Clock;
  /** The breaker policy of a pipeline (per-pipeline overrides applied). */
  policyFor(pipeline: string): BreakerPolicy;
  events?: BreakerEvents;
  /** Shared cooling of account routes after a 429. Absent: a 429 acts on the pipeline's own breaker only. */
  routeCooling?: RouteCoolingOptions | undefined;
}

/** Breaker bookkeeping for the router: the store, plus fail-safety and opening events. */
export interface Breakers {
  /** Snapshots of every model of the pipeline. On a store error: the last state this process saw. */
  read(pipeline: string): Promise<Map<string, BreakerSnapshot>>;
  /** Records one attempt and opens the breaker when the policy says so. Never throws. */
  record(pipeline: string, model: string, sample: AttemptSample): Promise<void>;
  /**
   * The account-route cooling of these route keys, by route key; only routes with a state are
   * present. From a per-container cache of `readCacheMs`; never throws.
   */
  routeCooling(routeKeys: readonly string[]): Promise<Map<string, RouteCooling>>;
}

export function createBreakers(options: BreakersOptions): Breakers {
  const { store, clock, policyFor, events = {} } = options;
  // What this process last saw, so a store outage degrades to per-process breakers, not to none.
  const lastKnown = new Map<string, Map<string, BreakerSnapshot>>();
  const remember = (pipeline: string, model: string, snapshot: BreakerSnapshot) => {
    let models = lastKnown.get(pipeline);
    if (!models) {
      models = new Map();
      setBounded(lastKnown, pipeline, models);
    }
    models.set(model, snapshot);
  };

  const open = (
    pipeline: string,
    model: string,
    after: BreakerSnapshot,
    reason: OpenReason,
    policy: BreakerPolicy,
  ) => openBreaker(options, remember, { pipeline, model, after, reason, policy });

  const accounts = createAccountCooling(options);

  return {
    routeCooling: (routeKeys) => accounts.read(routeKeys),

    async read(pipeline) {
      try {
        const snapshots = await store.readPipeline(pipeline, clock.now());
        setBounded(lastKnown, pipeline, new Map(snapshots));
        return snapshots;
      } catch (error) {
        events.onStoreError?.('read', error);
        return new Map(lastKnown.get(pipeline) ?? []);
      }
    },

    async record(pipeline, model, sample) {
      if (!isRecorded(sample)) return;
      const policy = policyFor(pipeline);
      const recording = store.record(pipeline, model, sample, policy);
      // The account route's cooling is a second item: written alongside, not after.
      const [recorded] = await Promise.allSettled([recording, accounts.cool(pipeline, model, sample)]);
      let after: BreakerSnapshot;
      if (recorded.status === 'fulfilled') after = recorded.value;
      else {
        events.onStoreError?.('record', recorded.reason);
        after = applySample(lastKnown.get(pipeline)?.get(model) ?? EMPTY_SNAPSHOT, sample, policy);
      }
      remember(pipeline, model, after);
      const reason = openingReason(after, sample, policy, clock.now());
      if (reason) await open(pipeline, model, after, reason, policy);
    },
  };
}

/** One breaker about to open: the state after the sample that opens it, and why. */
interface Opening {
  pipeline: string;
  model: string;
  after: BreakerSnapshot;
  reason: OpenReason;
  policy: BreakerPolicy;
}

/** Opens a breaker in the store (or, on a store error, in this process only) and reports it once. */
async function openBreaker(
  { store, clock, events = {} }: BreakersOptions,
  remember: (pipeline: string, model: string, snapshot: BreakerSnapshot) => void,
  { pipeline, model, after, reason, policy }: Opening,
): Promise<void> {
  const now = clock.now();
  let opened: boolean;
  try {
    opened = await store.tryOpen(pipeline, model, { now, reason, policy });
  } catch (error) {
    events.onStoreError?.('open', error);
    opened = true; // only this process knows; it is the one to report it
  }
  remember(pipeline, model, applyOpening(after, now, reason, policy));
  if (opened) {
    events.onOpened?.({
      pipeline,
      model,
      reason,
      openUntil: now + policy.openMs,
      alert: reason === 'upstream_auth' || reason === 'model_not_found',
    });
  }
}
