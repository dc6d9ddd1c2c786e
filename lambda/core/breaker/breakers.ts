import { setBounded } from '../bounded-map.js';
import { stateScope } from '../catalog/ad-hoc-chains.js';
import type { Clock } from '../time.js';
import { createAccountCooling } from './account-cooling.js';
import { createAccountProbeGate } from './account-probe-gate.js';
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
import { claimProbeSlot } from './probe-claim.js';
import { nextProbeSlot } from './probe-schedule.js';
import { applyRampStart, breakerPhase, rampEnd, rampReopenReason, readyToRamp } from './recovery.js';
import type { RouteCooling } from './route-cooling.js';

/** Reported once per opening, by the one writer that opened the breaker. */
export interface BreakerOpened {
  pipeline: string;
  model: string;
  reason: OpenReason;
  /** Ms since epoch. With recovery `ramp`: the first probe slot. */
  openUntil: number;
  /** How it returns: `window` (closed at `openUntil`) or `ramp` (probes from `openUntil` on). */
  recovery: 'window' | 'ramp';
  /** Our credential was refused or the model is gone: a person should look (ERROR log + metric). */
  alert: boolean;
}

/**
 * A step of a `ramp` breaker's return (docs/concepts.md#breaker-recovery), reported once by the
 * one writer that took it: `probing`, a probe slot claimed; `ramp`, the ramp started.
 */
export interface BreakerRecovering {
  pipeline: string;
  model: string;
  phase: 'probing' | 'ramp';
  /** When the step was taken, ms since epoch. */
  at: number;
  /** `probing`: the end of the probe's lease (its outcome sets the next slot); `ramp`: the end of the ramp (ms since epoch). */
  until: number;
}

export interface BreakerEvents {
  onOpened?(event: BreakerOpened): void;
  onRecovery?(event: BreakerRecovering): void;
  /** The store failed; the router carries on with what this process knows. */
  onStoreError?(
    operation: 'read' | 'record' | 'open' | 'probe' | 'ramp' | 'read-routes' | 'cool-route' | 'probe-route',
    error: unknown,
  ): void;
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
  /** The name a pipeline's breakers are kept under. Default `stateScope`: `adhoc` for every ad-hoc chain. */
  scopeOf?: ((pipeline: string) => string) | undefined;
}

/**
 * Breaker bookkeeping for the router: the store, plus fail-safety and opening events. A `pipeline`
 * may be an ad-hoc chain's id (`chain:…`): its state is the shared pipeline `adhoc`'s.
 */
export interface Breakers {
  /** Snapshots of every model of the pipeline. On a store error: the last state this process saw. */
  read(pipeline: string): Promise<Map<string, BreakerSnapshot>>;
  /**
   * Records one attempt and opens the breaker when the policy says so; a probe's success may start
   * the ramp, a failure during the ramp may open it again. Never throws.
   */
  record(pipeline: string, model: string, sample: AttemptSample): Promise<void>;
  /**
   * Claims the free probe slot starting at `slot` (the `openUntil` read) for one attempt on this
   * route; `true` for exactly one claimer across containers. Never throws: on a store error this
   * process probes on its own.
   */
  claimProbe(pipeline: string, model: string, slot: number): Promise<boolean>;
  /**
   * The account-route cooling of these route keys, by route key; only routes with a state are
   * present. From a per-container cache of `readCacheMs`; never throws.
   */
  routeCooling(routeKeys: readonly string[]): Promise<Map<string, RouteCooling>>;
}

export function createBreakers(options: BreakersOptions): Breakers {
  const { store, clock, policyFor, events = {} } = options;
  const scopeOf = options.scopeOf ?? stateScope;
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

  const accounts = createAccountCooling(options);
  const gate = createAccountProbeGate(options, accounts.routes);

  return {
    routeCooling: (routeKeys) => accounts.read(routeKeys),

    // Every ad-hoc chain shares the pipeline `adhoc` (scopeOf): the store, `lastKnown`, events and
    // policies only ever see configured names and that one, so no caller can crowd them out.
    async read(name) {
      const pipeline = scopeOf(name);
      try {
        const snapshots = await store.readPipeline(pipeline, clock.now());
        setBounded(lastKnown, pipeline, new Map(snapshots));
        return snapshots;
      } catch (error) {
        events.onStoreError?.('read', error);
        return new Map(lastKnown.get(pipeline) ?? []);
      }
    },

    async record(name, model, observed) {
      const pipeline = scopeOf(name);
      // A probe that tells nothing (the caller's own error, a cancellation) gives its gate back at
      // once rather than keep every pipeline off the route for the lease.
      if (!isRecorded(observed)) {
        if (observed.probe) await gate.leave(pipeline, model, policyFor(pipeline));
        return;
      }
      const policy = policyFor(pipeline);
      const known = lastKnown.get(pipeline)?.get(model);
      // A probe's outcome sets the next probe slot, from the opening this process read.
      const nextProbeAt = observed.probe
        ? nextProbeSlot(policy, known ?? {}, observed.at, observed.outcome === 'ok')
        : undefined;
      const sample: AttemptSample = nextProbeAt === undefined ? observed : { ...observed, nextProbeAt };
      const recording = store.record(pipeline, model, sample, policy);
      // The account route's cooling and probe gate are other items: written alongside, not after.
      const [recorded] = await Promise.allSettled([
        recording,
        accounts.cool(pipeline, model, sample),
        nextProbeAt === undefined ? undefined : gate.settle(pipeline, model, sample, nextProbeAt, policy),
      ]);
      let after: BreakerSnapshot;
      if (recorded.status === 'fulfilled') after = recorded.value;
      else {
        events.onStoreError?.('record', recorded.reason);
        after = applySample(known ?? EMPTY_SNAPSHOT, sample, policy);
      }
      remember(pipeline, model, after);
      await settle(options, remember, { pipeline, model, after, policy }, sample);
    },

    claimProbe: (name, model, slot) => {
      const pipeline = scopeOf(name);
      return claimProbeSlot(options, gate, lastKnown.get(pipeline)?.get(model), remember, {
        pipeline,
        model,
        slot,
      });
    },
  };
}

type Remember = (pipeline: string, model: string, snapshot: BreakerSnapshot) => void;

/**
 * What the state after a sample calls for: a probe's success may start the ramp; a failure opens a
 * closed breaker by the policy, or a ramping one by the ramp's rule (docs/concepts.md#breaker-recovery);
 * an open or probing breaker only waits for its probes.
 */
async function settle(
  options: BreakersOptions,
  remember: Remember,
  step: Omit<Opening, 'reason'>,
  sample: AttemptSample,
): Promise<void> {
  const { after, policy } = step;
  if (sample.probe && readyToRamp(after, policy)) return startRamp(options, remember, step);
  const now = options.clock.now();
  const phase = breakerPhase(after, now);
  const reason =
    phase === 'ramp'
      ? rampReopenReason(after, sample, policy, now)
      : phase === 'closed'
        ? openingReason(after, sample, policy, now)
        : undefined;
  if (reason) await openBreaker(options, remember, { ...step, reason });
}

/** The probes succeeded: starts the ramp in the store (or, on a store error, here) and reports it once. */
async function startRamp(
  { store, clock, events = {} }: BreakersOptions,
  remember: Remember,
  { pipeline, model, after, policy }: Omit<Opening, 'reason'>,
): Promise<void> {
  const now = clock.now();
  let started: boolean;
  try {
    started = await store.startRamp(pipeline, model, { now, openedAt: after.openedAt ?? 0, policy });
  } catch (error) {
    events.onStoreError?.('ramp', error);
    started = true;
  }
  if (!started) return;
  const ramped = applyRampStart(after, now, policy);
  remember(pipeline, model, ramped);
  events.onRecovery?.({ pipeline, model, phase: 'ramp', at: now, until: rampEnd(ramped) ?? now });
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
  remember: Remember,
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
  const openedState = applyOpening(after, now, reason, policy);
  remember(pipeline, model, openedState);
  if (opened) {
    events.onOpened?.({
      pipeline,
      model,
      reason,
      // With recovery `ramp`: the first probe slot.
      openUntil: openedState.openUntil ?? now,
      recovery: policy.recovery,
      alert: reason === 'upstream_auth' || reason === 'model_not_found',
    });
  }
}
