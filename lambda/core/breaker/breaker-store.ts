import type { AccountProbe, GateClaim, GateOutcome } from './account-probe.js';
import type { BreakerPolicy } from './breaker-policy.js';
import type { AttemptSample, BreakerSnapshot, OpenReason } from './breaker-state.js';
import type { RateLimitSample, RouteCooling, RouteCoolingPolicy } from './route-cooling.js';

/** A request to open one breaker. */
export interface OpenRequest {
  now: number;
  reason: OpenReason;
  policy: BreakerPolicy;
}

/** A request to claim one probe slot (recovery `ramp`): the slot is the `openUntil` the caller saw. */
export interface ProbeClaim {
  now: number;
  /** Start of the probe slot (ms since epoch), as read: the stored `openUntil`. */
  slot: number;
  policy: BreakerPolicy;
}

/** A request to start the ramp of one opening, once its probes have succeeded often enough. */
export interface RampStart {
  now: number;
  /** `openedAt` of the opening whose probes succeeded: a later opening is not ramped by them. */
  openedAt: number;
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
   * Claims the free probe slot `claim.slot` of an open `ramp` breaker: the slot is leased for
   * `probeLeaseMs` from `now` (the probe's recorded outcome sets the next slot). Resolves `true` for exactly one of the callers that saw the slot.
   */
  claimProbe(pipeline: string, model: string, claim: ProbeClaim): Promise<boolean>;
  /**
   * Starts the ramp of the opening at `request.openedAt` once its probe streak has reached
   * `probeSuccesses`. Resolves `true` only for the one caller whose write started it.
   */
  startRamp(pipeline: string, model: string, request: RampStart): Promise<boolean>;
  /**
   * The cooling and the probe gate (`probe`) of these account routes (ids from `accountRouteId`),
   * in one read; a route with neither, or whose items expired, is absent.
   */
  readRoutes(routes: readonly string[], now: number): Promise<Map<string, RouteCooling>>;
  /**
   * Cools one account route after a 429, in one atomic write that keeps the later cooling end.
   * Resolves with the state after it as far as this writer knows (at least its own end).
   */
  coolRoute(route: string, sample: RateLimitSample, policy: RouteCoolingPolicy): Promise<RouteCooling>;
  /**
   * Takes the probe gate of one account route (docs/concepts.md#the-probe-schedule) when no probe
   * holds it and no failed probe's next slot is ahead. Resolves `true` for exactly one of the
   * callers that saw it free. The state is kept `keepMs` after the write.
   */
  claimRouteProbe(route: string, claim: GateClaim, keepMs: number): Promise<boolean>;
  /**
   * Writes a probe's outcome to the account route's gate: shut until `nextSlot` after a failure,
   * open (and `probeOkAt`) after a success. Resolves with the state after it, or undefined when a
   * later shut by another pipeline is stored and kept. The state is kept `keepMs` after the write.
   */
  settleRouteProbe(route: string, outcome: GateOutcome, keepMs: number): Promise<AccountProbe | undefined>;
}
