/**
 * The probe gate of an **account route** (docs/concepts.md#the-probe-schedule): breakers are kept
 * per (pipeline, route), but the upstream a probe tests is the account route (provider entry,
 * upstream model id) that every pipeline reaching it shares. So while one pipeline's probe of an
 * account route is out, or has failed and its next slot has not come, no other pipeline's breaker
 * probes it; a probe's success clears the gate, and every breaker opened before that success
 * probes on its own again (its streak and ramp proceed as before). Pure: times come in as parameters.
 */

/** What a store keeps of one account route's probes. */
export interface AccountProbe {
  /**
   * While later than `now`, no breaker probes the account route (ms since epoch): the lease end of
   * a probe that is out, or the next slot after a failed one. Absent: never gated.
   */
  probeUntil?: number | undefined;
  /** The pipeline whose probe holds the gate, or failed last. */
  probeBy?: string | undefined;
  /** When a probe of the account route last succeeded (ms since epoch). */
  probeOkAt?: number | undefined;
}

/**
 * What the gate says to a breaker about to probe: `clear`, a probe succeeded since this breaker
 * opened and none failed since (probe without taking the gate); `held`, another probe is out or
 * the last one failed and its next slot has not come (do not probe); `free`, take the gate first.
 */
export type ProbeGate = 'clear' | 'held' | 'free';

/** A claim of the gate: the claiming pipeline's probe holds it for `leaseMs` from `now`. */
export interface GateClaim {
  pipeline: string;
  /** Ms since epoch. */
  now: number;
  /** How long the gate is held when the probe's outcome never comes, in ms (`probeLeaseMs`). */
  leaseMs: number;
}

/** The outcome of a probe of the account route. */
export interface GateOutcome {
  pipeline: string;
  /** When the probe ended (ms since epoch). */
  at: number;
  ok: boolean;
  /** After a failure: the prober's next slot (ms since epoch), until which the gate stays shut. */
  nextSlot: number;
}

/** The gate for a breaker that opened at `openedAt` (ms since epoch), at `now`. */
export function probeGate(
  state: AccountProbe | undefined,
  openedAt: number | undefined,
  now: number,
): ProbeGate {
  const until = state?.probeUntil;
  if (until !== undefined && until > now) return 'held';
  const okAt = state?.probeOkAt;
  if (okAt !== undefined && okAt >= (openedAt ?? 0) && (until ?? 0) <= okAt) return 'clear';
  return 'free';
}

/** True when a claim at `now` may take the gate: no probe holds it and no failed probe's slot is ahead. */
export function canClaimGate(state: AccountProbe | undefined, now: number): boolean {
  return state?.probeUntil === undefined || state.probeUntil <= now;
}

/** The state after a claim (check {@link canClaimGate} first). */
export function applyGateClaim(state: AccountProbe | undefined, claim: GateClaim): AccountProbe {
  return { ...state, probeUntil: claim.now + claim.leaseMs, probeBy: claim.pipeline };
}

/**
 * True when an outcome may be written over `state`: the gate is the outcome's own pipeline's, or
 * shuts no later than the outcome's new end (a later shut by another pipeline is kept).
 */
export function canSettleGate(state: AccountProbe | undefined, outcome: GateOutcome): boolean {
  const until = state?.probeUntil;
  return until === undefined || state?.probeBy === outcome.pipeline || until <= gateEnd(outcome);
}

/** Where an outcome leaves the gate: shut until the next slot after a failure, open after a success. */
export function gateEnd(outcome: GateOutcome): number {
  return outcome.ok ? outcome.at : outcome.nextSlot;
}

/** The state after a probe's outcome (check {@link canSettleGate} first). */
export function applyGateOutcome(state: AccountProbe | undefined, outcome: GateOutcome): AccountProbe {
  const next: AccountProbe = { ...state, probeUntil: gateEnd(outcome), probeBy: outcome.pipeline };
  if (outcome.ok) next.probeOkAt = outcome.at;
  return next;
}
