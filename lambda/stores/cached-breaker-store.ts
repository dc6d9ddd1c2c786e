import { setBounded } from '../core/bounded-map.js';
import type { AccountProbe, GateClaim, GateOutcome } from '../core/breaker/account-probe.js';
import type { BreakerPolicy } from '../core/breaker/breaker-policy.js';
import {
  type AttemptSample,
  applyOpening,
  type BreakerSnapshot,
  EMPTY_SNAPSHOT,
} from '../core/breaker/breaker-state.js';
import type { BreakerStore, OpenRequest, ProbeClaim, RampStart } from '../core/breaker/breaker-store.js';
import { applyProbeClaim, applyRampStart } from '../core/breaker/recovery.js';
import type { RateLimitSample, RouteCooling, RouteCoolingPolicy } from '../core/breaker/route-cooling.js';

/** Settings of the in-container read cache. */
export interface CachedBreakerStoreOptions {
  /**
   * How long a pipeline's read is reused, in ms (measured on the callers' clock, the `now` of
   * `readPipeline`). 0 turns the cache off. Suggested: 1000 for a busy Lambda container.
   */
  lifetimeMs: number;
}

interface Entry {
  fetchedAt: number;
  models: Map<string, BreakerSnapshot>;
}

interface LocalWrite {
  seq: number;
  snapshot: BreakerSnapshot;
}

/**
 * An in-container read cache in front of a shared store. The trade-off: at most one `Query` per
 * pipeline per `lifetimeMs` per container, but an opening or a cooling hint written by *another*
 * container is seen up to `lifetimeMs` late, so this container may send a few more attempts to a
 * route that just opened (they are recorded, and do not open it a second time). This container's
 * own writes are visible at once: `record` and `tryOpen` update the cached entry. Concurrent
 * misses share one read, so a spike of simultaneous requests costs one `Query`, not one each.
 */
export class CachedBreakerStore implements BreakerStore {
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<Map<string, BreakerSnapshot>>>();
  // Writes that finished while a read was in flight must survive that read's older answer.
  private readonly localWrites = new Map<string, Map<string, LocalWrite>>();
  private seq = 0;

  constructor(
    private readonly inner: BreakerStore,
    private readonly options: CachedBreakerStoreOptions,
  ) {}

  async readPipeline(pipeline: string, now: number): Promise<Map<string, BreakerSnapshot>> {
    const entry = this.entries.get(pipeline);
    if (entry && now >= entry.fetchedAt && now - entry.fetchedAt < this.options.lifetimeMs) {
      return new Map(entry.models);
    }
    let pending = this.inFlight.get(pipeline);
    if (!pending) {
      pending = this.fetch(pipeline, now);
      this.inFlight.set(pipeline, pending);
    }
    return new Map(await pending);
  }

  async record(
    pipeline: string,
    model: string,
    sample: AttemptSample,
    policy: BreakerPolicy,
  ): Promise<BreakerSnapshot> {
    const after = await this.inner.record(pipeline, model, sample, policy);
    this.remember(pipeline, model, after);
    return after;
  }

  async tryOpen(pipeline: string, model: string, request: OpenRequest): Promise<boolean> {
    const opened = await this.inner.tryOpen(pipeline, model, request);
    if (opened) {
      const current = this.entries.get(pipeline)?.models.get(model) ?? EMPTY_SNAPSHOT;
      this.remember(pipeline, model, applyOpening(current, request.now, request.reason, request.policy));
    } else {
      // Someone else opened it: their openUntil is in the table, not here. Read it next time.
      this.entries.delete(pipeline);
    }
    return opened;
  }

  async claimProbe(pipeline: string, model: string, claim: ProbeClaim): Promise<boolean> {
    const won = await this.inner.claimProbe(pipeline, model, claim);
    const current = this.entries.get(pipeline)?.models.get(model);
    // Won: the next slot is ours to know. Lost: another container's slot is in the table.
    if (won && current) this.remember(pipeline, model, applyProbeClaim(current, claim.now, claim.policy));
    else if (!won) this.entries.delete(pipeline);
    return won;
  }

  async startRamp(pipeline: string, model: string, request: RampStart): Promise<boolean> {
    const started = await this.inner.startRamp(pipeline, model, request);
    const current = this.entries.get(pipeline)?.models.get(model);
    if (started && current)
      this.remember(pipeline, model, applyRampStart(current, request.now, request.policy));
    else if (!started) this.entries.delete(pipeline);
    return started;
  }

  // Account-route cooling has its own per-container cache in `createBreakers` (`rateLimit.readCacheMs`).
  readRoutes(routes: readonly string[], now: number): Promise<Map<string, RouteCooling>> {
    return this.inner.readRoutes(routes, now);
  }

  coolRoute(route: string, sample: RateLimitSample, policy: RouteCoolingPolicy): Promise<RouteCooling> {
    return this.inner.coolRoute(route, sample, policy);
  }

  claimRouteProbe(route: string, claim: GateClaim, keepMs: number): Promise<boolean> {
    return this.inner.claimRouteProbe(route, claim, keepMs);
  }

  settleRouteProbe(route: string, outcome: GateOutcome, keepMs: number): Promise<AccountProbe | undefined> {
    return this.inner.settleRouteProbe(route, outcome, keepMs);
  }

  private async fetch(pipeline: string, now: number): Promise<Map<string, BreakerSnapshot>> {
    const startSeq = this.seq;
    try {
      const models = await this.inner.readPipeline(pipeline, now);
      const writes = this.localWrites.get(pipeline);
      for (const [model, write] of writes ?? []) {
        if (write.seq > startSeq) models.set(model, write.snapshot);
        else writes?.delete(model);
      }
      if (this.options.lifetimeMs > 0) setBounded(this.entries, pipeline, { fetchedAt: now, models });
      return models;
    } finally {
      this.inFlight.delete(pipeline);
    }
  }

  private remember(pipeline: string, model: string, snapshot: BreakerSnapshot): void {
    this.seq += 1;
    this.entries.get(pipeline)?.models.set(model, snapshot);
    if (this.inFlight.has(pipeline)) {
      let writes = this.localWrites.get(pipeline);
      if (!writes) {
        writes = new Map();
        setBounded(this.localWrites, pipeline, writes);
      }
      writes.set(model, { seq: this.seq, snapshot });
    }
  }
}

/** `inner` with a read cache of `lifetimeMs`; `inner` itself when the lifetime is 0. */
export function withReadCache(inner: BreakerStore, lifetimeMs: number): BreakerStore {
  return lifetimeMs > 0 ? new CachedBreakerStore(inner, { lifetimeMs }) : inner;
}
