import type { CapacityLease, CapacityRefusal } from '../capacity/route-capacity.js';
import type { ProviderError } from '../failures/provider-error.js';
import type { SkippedRoute, UnsupportedSkip } from '../ledger/ledger-entry.js';
import { actionOf, stepOf } from './attempt-labels.js';
import { createCapabilityFilter } from './capability-filter.js';
import { capacityGate } from './capacity-gate.js';
import { contextSkips, raiseFloor, type WindowBounds, windowAllows } from './context-window.js';
import { recoveryGate } from './recovery-gate.js';
import { sameRouteRetry } from './retry-policy.js';
import { callableTiers, type Health, readHealth, routeState, skippedFor } from './route-eligibility.js';
import type {
  AttemptRecord,
  LimitHit,
  RouteModel,
  RoutePolicy,
  RouteRequest,
  RouterDeps,
} from './route-types.js';
import { type Selection, selectModel } from './select-model.js';
import { selectionStrategy } from './selection-strategies.js';
import type { SelectionContext } from './selection-strategy.js';

/** The next attempt to make: the route to call, its key and its record, still without an outcome. */
export interface PlannedAttempt {
  route: RouteModel;
  /** The route key: the breaker and trail key (the model key for a model's own provider). */
  routeKey: string;
  record: AttemptRecord;
  /** Models passed over for their context window before this attempt (trail `!<model>:context`); absent when none. */
  tooSmall?: string[] | undefined;
  /** Ms to wait before the call: a `contract` retry's backoff or `Retry-After`; absent: none. */
  waitMs?: number | undefined;
  /** The attempt's in-flight slots (docs/concepts.md#bulkheads): released when the attempt ends. */
  lease?: CapacityLease | undefined;
}

/** Which route each attempt of one request calls, from the breaker state and what failed so far. */
export interface AttemptPlanner {
  /** Selects afresh for attempt `n`; undefined when no allowed route can be called. */
  next(n: number): Promise<PlannedAttempt | undefined>;
  /**
   * Attempt `n` on the route of `previous` again, a `retry` (a structured-output repair on the same
   * model), with its in-flight slot and quota taken like any attempt. Undefined when the route is
   * at its bulkhead or quota: it is left out of the rest of the request (reported as skipped on
   * the next attempt) and the caller selects with {@link next} instead, never waiting.
   */
  again(previous: PlannedAttempt, n: number): Promise<PlannedAttempt | undefined>;
  /**
   * Leaves a failed route out of the rest of this request; `local` when it sent nothing
   * (`not_configured`). With retry policy `contract`, `error` may earn the route one same-route
   * retry first (docs/concepts.md#retry-policy).
   */
  failed(routeKey: string, local: boolean, error?: ProviderError): void;
  /** The route refused the request as too long: only models with a larger context window remain. */
  contextExceeded(routeKey: string): void;
  /** The models passed over for their context window not yet in the trail, when no route is left at all; else undefined. */
  allTooSmall(): string[] | undefined;
  /**
   * The pipeline limit that keeps this request from going on, if any: the chain goes on past the
   * allowed tiers and every allowed route has failed (or none can be called).
   */
  limit(): LimitHit | undefined;
  /** Routes skipped for lacking a capability the request needs (see {@link UnsupportedSkips}). */
  readonly unsupported: UnsupportedSkips;
  /**
   * When routes refused attempts for capacity (full, quota): why, when to try again, and the
   * refusals no attempt has reported yet; undefined when none refused.
   */
  capacity(): { refusal: CapacityRefusal; skipped: SkippedRoute[] } | undefined;
}

/** The routes of one request skipped for lacking a capability it needs. */
export interface UnsupportedSkips {
  /** Those of the allowed tiers not reported on an attempt yet, in chain order; they count as reported now. */
  rest(): UnsupportedSkip[];
  /** Every one reported so far, in the order reported. */
  all(): UnsupportedSkip[];
}

/** The highest tier a request may use, and which setting says so; undefined: every tier. */
export function tierLimit(policy: RoutePolicy): LimitHit | undefined {
  if (policy.substitution === 'forbid') return { setting: 'substitution', maxTier: 1 };
  return policy.maxTier === undefined ? undefined : { setting: 'maxTier', maxTier: policy.maxTier };
}

/**
 * Plans the attempts of one request (docs/design.md#the-attempt-loop). Only the tiers the
 * pipeline's limits allow are ever considered, fail-open included. After a failure the same
 * model's next healthy route comes first (same-contract fallback), then a fresh selection over
 * the tiers (substitution). Every selection reads the breaker state again, which by then holds
 * the previous attempt's sample; a local failure writes nothing, so it is not read again.
 */
export function createAttemptPlanner(
  request: RouteRequest,
  deps: RouterDeps,
  deadline = deps.clock.now() + request.policy.deadlineMs,
): AttemptPlanner {
  const routesOf = (model: string) => deps.routesOf?.(model) ?? [model];
  const failed = new Set<string>();
  // A route not in the catalog can never be called, nor one found not configured in this request.
  const unconfigured = new Set<string>();
  const bound = tierLimit(request.policy);
  const allowed = request.tiers.slice(0, bound?.maxTier ?? request.tiers.length);
  // A route that cannot carry what the request needs is never selected, fail-open included.
  const capable = createCapabilityFilter(request.needs ?? [], deps.models, routesOf);
  const capacity = capacityGate(deps, request.tokenEstimate ?? 0);
  // A full or used-up route is left out like an unconfigured one: not even fail-open sends to it.
  const configured = (route: string) =>
    !unconfigured.has(route) &&
    !capacity.refuses(route) &&
    deps.models(route) !== undefined &&
    capable.carries(route);
  // Context windows (docs/concepts.md#context-windows): a model too small for the request is never called.
  const size: WindowBounds = { demand: request.contextTokens };
  const fits = (route: string) => windowAllows(deps.models(route)?.contextWindow, size);
  const callable = (route: string) => configured(route) && fits(route);
  let tiers = callableTiers(allowed, callable, routesOf);
  const tooSmall = contextSkips(allowed, routesOf, configured, fits);
  let health: Health | undefined;
  let last: PlannedAttempt | undefined;
  // Routes already reported as skipped for account-route cooling: once per request each.
  const reported = new Set<string>();
  const recovering = recoveryGate(deps);
  const strategy = selectionStrategy(request.policy.selection);
  const context = (now: number): Omit<SelectionContext, 'random'> => ({
    now,
    signal: (route) =>
      deps.signals?.read(route) ?? { latencyMs: undefined, freshness: 0, successRate: 1, inFlight: 0 },
    price: (route) => deps.models(route)?.price,
  });
  // Every route attempted so far in this request: a return to one is a retry, whatever came between.
  const tried = new Set<string>();
  // Routes retried once already under `contract`, and the retry the last failure earned, if any.
  const retried = new Set<string>();
  let pendingRetry: number | undefined;

  /**
   * The same route once more, as the route stands when the wait ends (`at`): a `Retry-After` cooling
   * has ended by then, an opened breaker has not. Undefined when it is blocked then, or its probe
   * slot went to another request: the loop selects as usual.
   */
  const retryPlan = async (previous: PlannedAttempt, n: number, waitMs: number, at: number) => {
    const { routeKey, route } = previous;
    if (!health) return undefined;
    const state = routeState(health, at, new Set(), tiers.routesOf, recovering);
    if (state.isBlocked(routeKey)) return undefined;
    // The retry takes its bulkhead slot and quota like any attempt (held through the wait).
    const lease = await capacity.take(routeKey);
    if (!lease) return undefined;
    const admitted = await recovering.admit(request.pipeline, routeKey, health.snapshots.get(routeKey), at);
    if (!admitted) {
      lease.release();
      return undefined;
    }
    retried.add(routeKey);
    const { tier, model, provider } = previous.record;
    const record = newRecord(n, {
      tier,
      model,
      provider,
      action: 'retry',
      step: 'retry',
      waitedMs: waitMs,
      ...admitted,
    });
    last = { route, routeKey, record, waitMs, lease };
    return last;
  };

  return {
    async next(n) {
      health ??= await readHealth(request.pipeline, tiers, deps);
      const now = deps.clock.now();
      if (pendingRetry !== undefined && last) {
        const waitMs = pendingRetry;
        pendingRetry = undefined;
        const retry = await retryPlan(last, n, waitMs, now + waitMs);
        if (retry) return retry;
      }
      const routes = routeState(health, now, failed, tiers.routesOf, recovering);
      const selection =
        sameModelFirst(last, tiers, routes) ??
        selectModel(tiers.list, routes.asModels, deps.random, strategy, context(now));
      const routeKey = selection && (selection.route ?? routes.pick(selection.key));
      const route = routeKey !== undefined ? deps.models(routeKey) : undefined;
      if (!selection || routeKey === undefined || !route) return undefined;
      const failOpen = routes.isBlocked(routeKey);
      const snapshot = health.snapshots.get(routeKey);
      // A full or used-up route is left out for the rest of the request: select again without it.
      const lease = await capacity.take(routeKey);
      if (!lease) {
        tiers = callableTiers(allowed, callable, routesOf);
        return this.next(n);
      }
      const admitted = failOpen ? {} : await recovering.admit(request.pipeline, routeKey, snapshot, now);
      // Another request (here or in another container) has this probe slot: select again without it.
      if (!admitted) {
        lease.release();
        return this.next(n);
      }
      const tier = tiers.list[selection.tier]?.number ?? selection.tier + 1;
      const passed = tooSmall.upTo(tier);
      const record = newRecord(n, {
        tier,
        model: selection.key,
        provider: route.model.provider,
        action: actionOf(failOpen, routeKey, last?.routeKey, tried),
        step: stepOf(selection.key, routeKey, last, tried),
        skipped: [
          ...capacity.drainSkipped(),
          ...capable.report(allowed, tier),
          ...skippedFor(tiers, selection.tier, routeKey, routes, health.cooling, reported),
        ],
        ...admitted,
        ...(selection.decision ? { selection: selection.decision } : {}),
      });
      last = { route, routeKey, record, lease, ...(passed.length > 0 ? { tooSmall: passed } : {}) };
      tried.add(routeKey);
      return last;
    },
    async again(previous, n) {
      const lease = await capacity.take(previous.routeKey);
      if (!lease) {
        this.failed(previous.routeKey, false);
        tiers = callableTiers(allowed, callable, routesOf);
        return undefined;
      }
      const { tier, model, provider } = previous.record;
      const record = newRecord(n, { tier, model, provider, action: 'retry', step: 'retry' });
      last = { route: previous.route, routeKey: previous.routeKey, record, lease };
      return last;
    },
    contextExceeded(routeKey) {
      if (last?.routeKey === routeKey) tooSmall.seen(last.record.model);
      size.floor = raiseFloor(size.floor, deps.models(routeKey)?.contextWindow);
      tiers = callableTiers(allowed, callable, routesOf);
    },
    allTooSmall() {
      return tiers.list.length === 0 && tooSmall.any() ? tooSmall.upTo(allowed.length) : undefined;
    },
    failed(routeKey, local, error) {
      failed.add(routeKey);
      const timing = { nowMs: deps.clock.now(), deadlineMs: deadline };
      const retry =
        !local && error
          ? sameRouteRetry(request.policy.retry, error, retried.has(routeKey), timing, deps.random)
          : undefined;
      pendingRetry = retry?.waitMs;
      if (local) {
        unconfigured.add(routeKey);
        tiers = callableTiers(allowed, callable, routesOf);
      } else health = undefined;
    },
    limit() {
      if (!bound || request.tiers.length <= bound.maxTier) return undefined;
      const every = tiers.list.flatMap((t) => t.members.flatMap((m) => tiers.routesOf(m.key)));
      return every.every((route) => failed.has(route)) ? bound : undefined;
    },
    unsupported: { rest: () => capable.report(allowed), all: capable.all },
    capacity() {
      const refusal = capacity.exhausted();
      return refusal && { refusal, skipped: capacity.drainSkipped() };
    },
  };
}

/** The record of attempt `n`, still without an outcome; an absent step and no skips leave no field. */
function newRecord(
  n: number,
  { step, skipped, ...fields }: Omit<AttemptRecord, 'attempt' | 'outcome' | 'status' | 'latencyMs'>,
): AttemptRecord {
  return {
    attempt: n,
    ...fields,
    ...(step ? { step } : {}),
    outcome: 'ok',
    status: 200,
    latencyMs: 0,
    ...(skipped && skipped.length > 0 ? { skipped } : {}),
  };
}

/** After a failure, the same model again while it has a healthy, unfailed route: a `route` step. */
function sameModelFirst(
  last: PlannedAttempt | undefined,
  tiers: ReturnType<typeof callableTiers>,
  routes: ReturnType<typeof routeState>,
): Selection | undefined {
  const model = last?.record.model;
  if (model === undefined || routes.firstEligible(model) === undefined) return undefined;
  return { key: model, tier: tiers.indexOf(model), failOpen: false };
}
