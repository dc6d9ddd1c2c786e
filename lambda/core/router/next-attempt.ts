import { type BreakerSnapshot, isCooling, isOpen } from '../breaker/breaker-state.js';
import type { AttemptAction } from '../ledger/ledger-entry.js';
import type { AttemptRecord, RouteModel, RouteRequest, RouterDeps } from './route-types.js';
import { selectModel } from './select-model.js';

/** The next attempt to make: the model to call and its record, still without an outcome. */
export interface PlannedAttempt {
  route: RouteModel;
  record: AttemptRecord;
}

/** Which model each attempt of one request calls, from the breaker state and what failed so far. */
export interface AttemptPlanner {
  /** Selects afresh for attempt `n`; undefined when no member can be called. */
  next(n: number, previous: AttemptRecord | undefined): Promise<PlannedAttempt | undefined>;
  /** Leaves a failed model out of the rest of this request; `local` when it sent nothing (`not_configured`). */
  failed(model: string, local: boolean): void;
}

/**
 * Plans the attempts of one request. Every selection reads the breaker state again, which by then
 * holds the previous attempt's sample; a local failure writes nothing to the store, so the state
 * read before it is still current and is not read again.
 */
export function createAttemptPlanner(request: RouteRequest, deps: RouterDeps): AttemptPlanner {
  const failed = new Set<string>();
  // A member not in the catalog can never be called, nor one found not configured in this
  // request (no key): leave them out of every selection.
  const unconfigured = new Set<string>();
  // Each callable tier keeps its position in the chain: the ledger's `tier` is the chain's.
  const callableTiers = () =>
    request.tiers
      .map((tier, index) => ({
        members: tier.members.filter((m) => !unconfigured.has(m.key) && deps.models(m.key) !== undefined),
        number: index + 1,
      }))
      .filter((tier) => tier.members.length > 0);
  let tiers = callableTiers();
  let snapshots: Map<string, BreakerSnapshot> | undefined;

  return {
    async next(n, previous) {
      snapshots ??= await deps.breakers.read(request.pipeline);
      const current = snapshots;
      const now = deps.clock.now();
      const isBlocked = (key: string) => {
        const s = current.get(key);
        return s !== undefined && (isOpen(s, now) || isCooling(s, now));
      };
      const selection = selectModel(tiers, { isBlocked, hasFailed: (key) => failed.has(key) }, deps.random);
      const route = selection && deps.models(selection.key);
      if (!selection || !route) return undefined;
      const record: AttemptRecord = {
        attempt: n,
        tier: tiers[selection.tier]?.number ?? selection.tier + 1,
        model: selection.key,
        provider: route.model.provider,
        action: actionOf(selection.failOpen, selection.key, previous),
        outcome: 'ok',
        status: 200,
        latencyMs: 0,
      };
      return { route, record };
    },
    failed(model, local) {
      failed.add(model);
      if (local) {
        unconfigured.add(model);
        tiers = callableTiers();
      } else snapshots = undefined;
    },
  };
}

function actionOf(failOpen: boolean, key: string, previous: AttemptRecord | undefined): AttemptAction {
  if (failOpen) return 'fail-open';
  if (!previous) return 'first';
  return previous.model === key ? 'retry' : 'fallback';
}
