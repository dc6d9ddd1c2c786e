import { setBounded } from '../core/bounded-map.js';
import {
  type AccountProbe,
  applyGateClaim,
  applyGateOutcome,
  canClaimGate,
  canSettleGate,
  type GateClaim,
  type GateOutcome,
} from '../core/breaker/account-probe.js';
import type { BreakerPolicy } from '../core/breaker/breaker-policy.js';
import {
  type AttemptSample,
  applyOpening,
  applySample,
  type BreakerSnapshot,
  EMPTY_SNAPSHOT,
  isOpen,
} from '../core/breaker/breaker-state.js';
import type { BreakerStore, OpenRequest, ProbeClaim, RampStart } from '../core/breaker/breaker-store.js';
import { applyProbeClaim, applyRampStart, canClaimProbe, readyToRamp } from '../core/breaker/recovery.js';
import {
  applyRateLimit,
  isRouteCooling,
  NOT_COOLING,
  type RateLimitSample,
  type RouteCooling,
  type RouteCoolingPolicy,
} from '../core/breaker/route-cooling.js';

/**
 * Breaker state in this process only: the local default. It holds at most
 * `PIPELINE_STATE_LIMIT` pipelines, the oldest forgotten beyond: a backstop, since the breakers
 * keep every ad-hoc chain under the one pipeline `adhoc` (docs/security.md#ad-hoc-chains). Every
 * operation is synchronous under the hood, so concurrent requests in one process never lose an update.
 */
export class MemoryBreakerStore implements BreakerStore {
  private readonly pipelines = new Map<string, Map<string, BreakerSnapshot>>();
  private readonly routes = new Map<string, RouteCooling>();
  private readonly probes = new Map<string, AccountProbe>();

  async readPipeline(pipeline: string): Promise<Map<string, BreakerSnapshot>> {
    return new Map(this.pipelines.get(pipeline) ?? []);
  }

  async record(
    pipeline: string,
    model: string,
    sample: AttemptSample,
    policy: BreakerPolicy,
  ): Promise<BreakerSnapshot> {
    const models = this.models(pipeline);
    const after = applySample(models.get(model) ?? EMPTY_SNAPSHOT, sample, policy);
    models.set(model, after);
    return after;
  }

  async tryOpen(pipeline: string, model: string, request: OpenRequest): Promise<boolean> {
    const models = this.models(pipeline);
    const current = models.get(model) ?? EMPTY_SNAPSHOT;
    if (isOpen(current, request.now)) return false;
    models.set(model, applyOpening(current, request.now, request.reason, request.policy));
    return true;
  }

  async claimProbe(pipeline: string, model: string, claim: ProbeClaim): Promise<boolean> {
    const models = this.models(pipeline);
    const current = models.get(model);
    if (!current || !canClaimProbe(current, claim.slot, claim.now)) return false;
    models.set(model, applyProbeClaim(current, claim.now, claim.policy));
    return true;
  }

  async startRamp(pipeline: string, model: string, request: RampStart): Promise<boolean> {
    const models = this.models(pipeline);
    const current = models.get(model);
    if (!current || current.openedAt !== request.openedAt || !readyToRamp(current, request.policy))
      return false;
    models.set(model, applyRampStart(current, request.now, request.policy));
    return true;
  }

  async readRoutes(routes: readonly string[], now: number): Promise<Map<string, RouteCooling>> {
    const found = new Map<string, RouteCooling>();
    for (const route of routes) {
      const state = this.routes.get(route);
      const probe = this.probes.get(route);
      // Like an expired DynamoDB item: a cooling that has ended is no state at all.
      const cooling = state && isRouteCooling(state, now) ? state : undefined;
      if (cooling || probe) found.set(route, { ...cooling, ...(probe ? { probe: { ...probe } } : {}) });
    }
    return found;
  }

  // `keepMs`: memory keeps a bounded number of routes instead of expiring them.
  async claimRouteProbe(route: string, claim: GateClaim, _keepMs?: number): Promise<boolean> {
    const current = this.probes.get(route);
    if (!canClaimGate(current, claim.now)) return false;
    setBounded(this.probes, route, applyGateClaim(current, claim));
    return true;
  }

  async settleRouteProbe(
    route: string,
    outcome: GateOutcome,
    _keepMs?: number,
  ): Promise<AccountProbe | undefined> {
    const current = this.probes.get(route);
    if (!canSettleGate(current, outcome)) return undefined;
    const after = applyGateOutcome(current, outcome);
    setBounded(this.probes, route, after);
    return { ...after };
  }

  async coolRoute(route: string, sample: RateLimitSample, policy: RouteCoolingPolicy): Promise<RouteCooling> {
    const after = applyRateLimit(this.routes.get(route) ?? NOT_COOLING, sample, policy);
    setBounded(this.routes, route, after);
    return after;
  }

  private models(pipeline: string): Map<string, BreakerSnapshot> {
    let models = this.pipelines.get(pipeline);
    if (!models) {
      models = new Map();
      setBounded(this.pipelines, pipeline, models);
    }
    return models;
  }
}

/** A breaker store for one process. */
export function createMemoryBreakerStore(): MemoryBreakerStore {
  return new MemoryBreakerStore();
}
