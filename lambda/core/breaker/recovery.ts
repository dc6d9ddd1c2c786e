/**
 * Half-open recovery (recovery `ramp`, docs/concepts.md#breaker-recovery, seed 003): while open,
 * one probe per probe slot; `probeSuccesses` probe successes in a row start the ramp, which admits
 * a growing share of the pipeline's traffic; a failure while ramping that brings the ramp's failure
 * rate to `failureRate` opens it again. Every decision is a pure function of the stored snapshot
 * and the clock, so every container makes the same one; the stores make each transition a
 * conditional write that exactly one writer wins.
 */
import { FAILURE_POLICY } from '../failures/failure-class.js';
import type { BreakerPolicy } from './breaker-policy.js';
import {
  type AttemptSample,
  type BreakerSnapshot,
  isCountedFailure,
  isOpen,
  type OpenReason,
  windowCounts,
} from './breaker-state.js';

/** Where a breaker is on its way back: `open`, `probing` (probes under way), `ramp`, `closed`. */
export type BreakerPhase = 'closed' | 'open' | 'probing' | 'ramp';

/**
 * What a selection may do with a route by its own breaker: send freely, never (open, or a probe
 * slot already taken), claim the free probe slot that starts at `slot`, or send with probability
 * `share` percent (the ramp).
 */
export type RouteAccess =
  | { kind: 'closed' }
  | { kind: 'blocked' }
  | { kind: 'probe'; slot: number }
  | { kind: 'ramp'; share: number };

/** When the ramp ends (ms since epoch): after its last step; undefined without a ramp. */
export function rampEnd(snapshot: BreakerSnapshot): number | undefined {
  const { rampStart, rampStepMs, rampSteps } = snapshot;
  if (rampStart === undefined || rampStepMs === undefined || !rampSteps) return undefined;
  return rampStart + rampSteps.length * rampStepMs;
}

/**
 * The share (percent) the ramp admits at `now`; undefined outside a ramp. A clock behind the one
 * that started the ramp sees its first step, never a closed breaker.
 */
export function rampShare(snapshot: BreakerSnapshot, now: number): number | undefined {
  const end = rampEnd(snapshot);
  const { rampStart, rampStepMs, rampSteps } = snapshot;
  if (end === undefined || rampStart === undefined || !rampStepMs || !rampSteps) return undefined;
  if (now >= end || isOpen(snapshot, now)) return undefined;
  return rampSteps[Math.max(0, Math.floor((now - rampStart) / rampStepMs))];
}

export function breakerPhase(snapshot: BreakerSnapshot | undefined, now: number): BreakerPhase {
  if (!snapshot) return 'closed';
  if (snapshot.probing) {
    return snapshot.probeAt !== undefined || !isOpen(snapshot, now) ? 'probing' : 'open';
  }
  if (isOpen(snapshot, now)) return 'open';
  return rampShare(snapshot, now) === undefined ? 'closed' : 'ramp';
}

export function routeAccess(snapshot: BreakerSnapshot | undefined, now: number): RouteAccess {
  if (!snapshot) return { kind: 'closed' };
  if (snapshot.probing && !isOpen(snapshot, now)) return { kind: 'probe', slot: snapshot.openUntil ?? 0 };
  if (isOpen(snapshot, now)) return { kind: 'blocked' };
  const share = rampShare(snapshot, now);
  return share === undefined ? { kind: 'closed' } : { kind: 'ramp', share };
}

/** True while the probe slot that starts at `slot` is free to claim at `now`. */
export function canClaimProbe(snapshot: BreakerSnapshot, slot: number, now: number): boolean {
  return snapshot.probing === true && (snapshot.openUntil ?? 0) === slot && !isOpen(snapshot, now);
}

/**
 * The state after claiming a probe slot at `now`: the slot is leased to the probe for
 * `probeLeaseMs`, and the probe's outcome sets the next slot (`nextProbeSlot`), so one probe runs
 * at a time and a lost outcome frees the slot after the lease.
 */
export function applyProbeClaim(
  snapshot: BreakerSnapshot,
  now: number,
  policy: BreakerPolicy,
): BreakerSnapshot {
  return { ...snapshot, openUntil: now + policy.probeLeaseMs, probeAt: now };
}

/** True when the probes have succeeded often enough in a row for the ramp to start. */
export function readyToRamp(snapshot: BreakerSnapshot, policy: BreakerPolicy): boolean {
  return snapshot.probing === true && (snapshot.probeStreak ?? 0) >= policy.probeSuccesses;
}

/**
 * The state when the ramp starts at `now`: no longer open, the ramp's plan stored with its start
 * (so every container applies the same share), and the window emptied so the ramp's failure rate
 * is its own, not the opening's.
 */
export function applyRampStart(
  snapshot: BreakerSnapshot,
  now: number,
  policy: BreakerPolicy,
): BreakerSnapshot {
  const { probing, probeStreak, probeAt, openUntil, ...rest } = snapshot;
  return {
    ...rest,
    consecutive429: 0,
    buckets: {},
    rampStart: now,
    rampStepMs: policy.rampStepMs,
    rampSteps: [...policy.rampSteps],
  };
}

/**
 * Whether a sample taken during the ramp opens the breaker again, and why: a refused credential or
 * a missing model at once, `consecutive429` 429s in a row, or a failure that brings the ramp's
 * failure rate (its samples since it started, no minimum) to `failureRate`.
 */
export function rampReopenReason(
  after: BreakerSnapshot,
  sample: AttemptSample,
  policy: BreakerPolicy,
  now: number,
): OpenReason | undefined {
  if (!isCountedFailure(sample) || breakerPhase(after, now) !== 'ramp') return undefined;
  const { outcome } = sample;
  if ((outcome === 'upstream_auth' || outcome === 'model_not_found') && FAILURE_POLICY[outcome].opensAtOnce) {
    return outcome;
  }
  if (after.consecutive429 >= policy.consecutive429) return 'consecutive_429';
  const { attempts, failures } = windowCounts(after, now, policy);
  return attempts > 0 && failures / attempts >= policy.failureRate ? 'failure_rate' : undefined;
}
