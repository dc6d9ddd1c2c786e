import type { BreakerPolicy } from './breaker-policy.js';
import type { AttemptSample, BreakerSnapshot, OpenReason } from './breaker-state.js';
import type { RateLimitSample, RouteCooling, RouteCoolingPolicy } from './route-cooling.js';

/** A request to open one breaker. */
export interface OpenRequest {
  now: number;
  reason: OpenReason;
  policy: BreakerPolicy;
}

/**
 * Where breaker state lives. Shaped so that a DynamoDB store can serve a whole pipeline in one
 * read (one partition per pipeline) and record an attempt in one write (an atomic update that
 * returns the new state). Opening is separate and conditional: exactly one writer wins it.
 */
export interface BreakerStore {
  /** Every known (model → snapshot) of one pipeline, in one read. Unknown models are absent. */
  readPipeline(pipeline: string, now: number): Promise<Map<string, BreakerSnapshot>>;
  /** Adds one sample atomically and returns the state after it. */
  record(
    pipeline: string,
    model: string,
    sample: AttemptSample,
    policy: BreakerPolicy,
  ): Promise<BreakerSnapshot>;
  /**
   * Opens the breaker unless it is already open. Resolves `true` only for the one caller whose
   * write opened it, so that only that caller reports the opening.
   */
  tryOpen(pipeline: string, model: string, request: OpenRequest): Promise<boolean>;
  /**
   * The cooling of these account routes (ids from `accountRouteId`), in one read; a route that
   * never cooled, or whose item expired, is absent.
   */
  readRoutes(routes: readonly string[], now: number): Promise<Map<string, RouteCooling>>;
  /**
   * Cools one account route after a 429, in one atomic write that keeps the later cooling end.
   * Resolves with the state after it as far as this writer knows (at least its own end).
   */
  coolRoute(route: string, sample: RateLimitSample, policy: RouteCoolingPolicy): Promise<RouteCooling>;
}
