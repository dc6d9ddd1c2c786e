import { FAILURE_POLICY, type FailureClass } from '../failures/failure-class.js';
import { type BreakerPolicy, bucketStart } from './breaker-policy.js';
import { firstProbeDelay } from './probe-schedule.js';

/** Attempts and failures counted in one window bucket. */
export interface BucketCounts {
  attempts: number;
  failures: number;
}

/**
 * What a store keeps for one (pipeline, model). The same shape for every store, so the decisions
 * below are made once, here.
 */
export interface BreakerSnapshot {
  /** Open until this time (ms since epoch); closed when absent or in the past. */
  openUntil?: number | undefined;
  /** When the current or last opening happened. */
  openedAt?: number | undefined;
  /** Why it opened: `consecutive_429`, `failure_rate`, `upstream_auth` or `model_not_found`. */
  openReason?: OpenReason | undefined;
  /** 429s in a row since the last success (or the last opening). */
  consecutive429: number;
  /** Do not select before this time: the upstream asked us to wait (`Retry-After`). */
  coolUntil?: number | undefined;
  /** Window buckets keyed by bucket start (ms). Buckets older than the window are ignored. */
  buckets: Record<string, BucketCounts>;
  /**
   * This opening recovers through probes (recovery `ramp`, docs/concepts.md#breaker-recovery):
   * while set, `openUntil` is the start of the next probe slot.
   */
  probing?: boolean | undefined;
  /** Consecutive probe successes since the opening. */
  probeStreak?: number | undefined;
  /** When the last probe slot was claimed (ms since epoch); absent before the first. */
  probeAt?: number | undefined;
  /** When the ramp started (ms since epoch); the ramp's plan is stored with it. */
  rampStart?: number | undefined;
  /** How long each ramp step is held, in ms, as the ramp started with. */
  rampStepMs?: number | undefined;
  /** Percent of traffic admitted at each ramp step, as the ramp started with. */
  rampSteps?: readonly number[] | undefined;
}

export type OpenReason = 'consecutive_429' | 'failure_rate' | 'upstream_auth' | 'model_not_found';

/** One recorded attempt, as the breaker sees it. */
export interface AttemptSample {
  /** When the attempt ended (ms since epoch). */
  at: number;
  /** `ok`, or the failure class of the attempt. */
  outcome: 'ok' | FailureClass;
  /** Cooling hint from `Retry-After`, in ms. */
  retryAfterMs?: number | undefined;
  /** The attempt was the probe of a probe slot: its outcome moves the probe streak. */
  probe?: boolean | undefined;
  /**
   * A probe's outcome sets the next probe slot (ms since epoch, `nextProbeSlot`): `at` after a
   * success, one step of the probe schedule later after a failure. Applied only while probing.
   */
  nextProbeAt?: number | undefined;
}

export const EMPTY_SNAPSHOT: Readonly<BreakerSnapshot> = Object.freeze({ consecutive429: 0, buckets: {} });

/** True when the sample changes breaker state at all: successes and counted failures do. */
export function isRecorded(sample: AttemptSample): boolean {
  return sample.outcome === 'ok' || FAILURE_POLICY[sample.outcome].countsInBreaker;
}

/** True when the sample is a failure that counts in the window. */
export function isCountedFailure(sample: AttemptSample): boolean {
  return sample.outcome !== 'ok' && FAILURE_POLICY[sample.outcome].countsInBreaker;
}

export function isOpen(snapshot: BreakerSnapshot, now: number): boolean {
  return snapshot.openUntil !== undefined && snapshot.openUntil > now;
}

export function isCooling(snapshot: BreakerSnapshot, now: number): boolean {
  return snapshot.coolUntil !== undefined && snapshot.coolUntil > now;
}

/** Attempts and failures inside the sliding window that ends at `now`. */
export function windowCounts(snapshot: BreakerSnapshot, now: number, policy: BreakerPolicy): BucketCounts {
  let attempts = 0;
  let failures = 0;
  const oldestStart = now - policy.windowMs;
  for (const [start, counts] of Object.entries(snapshot.buckets)) {
    if (Number(start) > oldestStart && Number(start) <= now) {
      attempts += counts.attempts;
      failures += counts.failures;
    }
  }
  return { attempts, failures };
}

/**
 * The state after one sample, as a store applies it. A `Retry-After` cools the model for at most
 * `openMs`, so a hostile or broken header cannot bench a route for longer than a breaker would.
 * The DynamoDB store does the same with one update expression. Pure: returns a new snapshot and drops buckets that left the window.
 */
export function applySample(
  snapshot: BreakerSnapshot,
  sample: AttemptSample,
  policy: BreakerPolicy,
): BreakerSnapshot {
  if (!isRecorded(sample)) return snapshot;
  const key = String(bucketStart(sample.at, policy));
  const buckets: Record<string, BucketCounts> = {};
  for (const [start, counts] of Object.entries(snapshot.buckets)) {
    if (Number(start) > sample.at - policy.windowMs) buckets[start] = counts;
  }
  const current = buckets[key] ?? { attempts: 0, failures: 0 };
  buckets[key] = {
    attempts: current.attempts + 1,
    failures: current.failures + (isCountedFailure(sample) ? 1 : 0),
  };
  const consecutive429 =
    sample.outcome === 'rate_limited'
      ? snapshot.consecutive429 + 1
      : sample.outcome === 'ok'
        ? 0
        : snapshot.consecutive429;
  const coolUntil =
    sample.retryAfterMs !== undefined && sample.retryAfterMs > 0
      ? Math.max(snapshot.coolUntil ?? 0, sample.at + Math.min(sample.retryAfterMs, policy.openMs))
      : snapshot.coolUntil;
  const next: BreakerSnapshot = { ...snapshot, buckets, consecutive429, coolUntil };
  if (sample.probe) next.probeStreak = sample.outcome === 'ok' ? (snapshot.probeStreak ?? 0) + 1 : 0;
  if (sample.probe && snapshot.probing && sample.nextProbeAt !== undefined)
    next.openUntil = sample.nextProbeAt;
  return next;
}

/**
 * Whether the state after `sample` should open the breaker, and why. Only failures open it:
 * a success never does, even when the window's rate is still high.
 */
export function openingReason(
  after: BreakerSnapshot,
  sample: AttemptSample,
  policy: BreakerPolicy,
  now: number,
): OpenReason | undefined {
  if (!isCountedFailure(sample) || isOpen(after, now)) return undefined;
  const { outcome } = sample;
  if ((outcome === 'upstream_auth' || outcome === 'model_not_found') && FAILURE_POLICY[outcome].opensAtOnce) {
    return outcome;
  }
  if (after.consecutive429 >= policy.consecutive429) return 'consecutive_429';
  const { attempts, failures } = windowCounts(after, now, policy);
  if (attempts >= policy.minSamples && failures / attempts >= policy.failureRate) return 'failure_rate';
  return undefined;
}

/**
 * The state after a successful opening, and the 429 streak starts over. Recovery `window`: open
 * for `openMs`. Recovery `ramp`: open until the first probe slot of the probe schedule
 * (`firstProbeDelay`: the schedule's first interval, `openMs` for a quarantine); a ramp in
 * progress ends.
 */
export function applyOpening(
  snapshot: BreakerSnapshot,
  now: number,
  reason: OpenReason,
  policy: BreakerPolicy,
): BreakerSnapshot {
  const { probing, probeStreak, probeAt, rampStart, rampStepMs, rampSteps, ...rest } = snapshot;
  const opened = { ...rest, openedAt: now, openReason: reason, consecutive429: 0 };
  if (policy.recovery === 'ramp') {
    return { ...opened, openUntil: now + firstProbeDelay(policy, reason), probing: true, probeStreak: 0 };
  }
  return { ...opened, openUntil: now + policy.openMs };
}
