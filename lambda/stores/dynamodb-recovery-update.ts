import {
  type BreakerPolicy,
  bucketStart,
  bucketWidth,
  WINDOW_BUCKETS,
} from '../core/breaker/breaker-policy.js';
import type { ProbeClaim, RampStart } from '../core/breaker/breaker-store.js';
import {
  attemptsAttribute,
  BREAKER_ATTRIBUTES,
  expiresAtFor,
  failuresAttribute,
  TTL_MARGIN_SECONDS,
} from './dynamodb-breaker-item.js';
import { BREAKER_TABLE_KEYS } from './dynamodb-breaker-keys.js';
import { SKEW_BUCKETS, type UpdateParts } from './dynamodb-breaker-update.js';

const n = BREAKER_ATTRIBUTES;

/**
 * A probe-slot claim as one conditional `UpdateItem` (docs/concepts.md#breaker-recovery): it
 * succeeds only while the breaker still recovers through probes and its `openUntil` is the slot
 * the caller saw and has passed, and it leases the slot to the claimer (`openUntil` moves
 * `probeLeaseMs` ahead; the probe's recorded outcome sets the next slot), so of every container
 * that saw the slot exactly one wins it and one probe runs at a time.
 */
export function claimProbeUpdate({ now, slot, policy }: ProbeClaim): UpdateParts {
  return {
    UpdateExpression: 'SET #ou = :next, #pa = :now, #exp = :exp ADD #rev :one',
    ConditionExpression: '#pr = :true AND #ou = :slot AND #ou <= :now',
    ExpressionAttributeNames: {
      '#ou': n.openUntil,
      '#pa': n.probeAt,
      '#pr': n.probing,
      '#exp': BREAKER_TABLE_KEYS.ttlAttribute,
      '#rev': n.rev,
    },
    ExpressionAttributeValues: {
      ':next': now + policy.probeLeaseMs,
      ':now': now,
      ':slot': slot,
      ':true': true,
      ':one': 1,
      ':exp': expiresAtFor(now, policy),
    },
  };
}

/**
 * The start of a ramp as one conditional `UpdateItem`, doing what `applyRampStart` does: it
 * succeeds only for the opening at `openedAt`, still probing, with a probe streak of at least
 * `probeSuccesses`. It stores the ramp's plan with its start, ends the opening, and removes every
 * window bucket a reader may still count (the window, plus the clock skew either side), so the
 * ramp's failure rate is its own. The item lives at least until the ramp ends.
 */
export function startRampUpdate({ now, openedAt, policy }: RampStart): UpdateParts {
  const names: Record<string, string> = {
    '#ou': n.openUntil,
    '#oa': n.openedAt,
    '#pr': n.probing,
    '#ps': n.probeStreak,
    '#pa': n.probeAt,
    '#rs': n.rampStart,
    '#rsm': n.rampStepMs,
    '#rsteps': n.rampSteps,
    '#c429': n.consecutive429,
    '#exp': BREAKER_TABLE_KEYS.ttlAttribute,
    '#rev': n.rev,
  };
  const remove = ['#ou', '#pr', '#ps', '#pa', ...windowBucketNames(now, policy, names)];
  const end = now + policy.rampSteps.length * policy.rampStepMs;
  return {
    UpdateExpression: `SET #rs = :now, #rsm = :stepMs, #rsteps = :steps, #c429 = :zero, #exp = :exp ADD #rev :one REMOVE ${remove.join(', ')}`,
    ConditionExpression: '#pr = :true AND #oa = :openedAt AND #ps >= :needed',
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: {
      ':now': now,
      ':stepMs': policy.rampStepMs,
      ':steps': [...policy.rampSteps],
      ':zero': 0,
      ':one': 1,
      ':true': true,
      ':openedAt': openedAt,
      ':needed': policy.probeSuccesses,
      ':exp': Math.max(expiresAtFor(now, policy), Math.ceil(end / 1000) + TTL_MARGIN_SECONDS),
    },
  };
}

/** Names (added to `names`) of the bucket attributes of the window ending at `now`, skew included. */
function windowBucketNames(now: number, policy: BreakerPolicy, names: Record<string, string>): string[] {
  const width = bucketWidth(policy);
  const newest = bucketStart(now, policy) + SKEW_BUCKETS * width;
  const placeholders: string[] = [];
  for (let k = 0; k <= WINDOW_BUCKETS + 2 * SKEW_BUCKETS; k++) {
    const start = newest - k * width;
    names[`#wa${k}`] = attemptsAttribute(start);
    names[`#wf${k}`] = failuresAttribute(start);
    placeholders.push(`#wa${k}`, `#wf${k}`);
  }
  return placeholders;
}
