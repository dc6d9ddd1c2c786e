import {
  type BreakerPolicy,
  bucketStart,
  bucketWidth,
  WINDOW_BUCKETS,
} from '../core/breaker/breaker-policy.js';
import { type AttemptSample, isCountedFailure, type OpenReason } from '../core/breaker/breaker-state.js';
import { firstProbeDelay } from '../core/breaker/probe-schedule.js';
import {
  attemptsAttribute,
  BREAKER_ATTRIBUTES,
  expiresAtFor,
  failuresAttribute,
} from './dynamodb-breaker-item.js';
import { BREAKER_TABLE_KEYS } from './dynamodb-breaker-keys.js';

/** The expression part of an `UpdateItem` (table, key and return values are added by the store). */
export interface UpdateParts {
  UpdateExpression: string;
  ConditionExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, unknown>;
}

/**
 * Buckets a clock may lag another container's and still count correctly: a write never removes a
 * bucket that a reader up to this many bucket widths behind still counts.
 */
export const SKEW_BUCKETS = 1;

/**
 * How far back (in buckets) a write cleans up when it knows nothing about the item. The invariant:
 * after a write whose `lastBucket` is L, no bucket at or before L - (WINDOW_BUCKETS + SKEW_BUCKETS)
 * widths is left. A write that may assume `lastBucket >= K` (its condition checks it) therefore
 * removes exactly the buckets between K and its own bucket, shifted by the window: none or one in
 * steady traffic, when K is what this container saw a moment ago; `QUIET_BUCKETS` when it knows
 * nothing. An item quieter than that takes the read-modify-write path once, which drops the rest.
 * The item stays at most `WINDOW_BUCKETS + 2 * SKEW_BUCKETS` buckets.
 */
export const QUIET_BUCKETS = WINDOW_BUCKETS;

const n = BREAKER_ATTRIBUTES;

/**
 * One sample as one `UpdateItem`, doing exactly what `applySample` does: `ADD` the bucket's
 * counters, bump or reset the 429 streak, set the cooling end, refresh the TTL, and `REMOVE` the
 * bucket attributes that just left the window. Three things an update expression cannot do are
 * guarded by the condition instead, and send the caller to the read-modify-write path when they
 * fail: treating an expired item as absent (an `ADD` would revive its old 429 streak), dropping
 * buckets after a long quiet spell, and keeping the later of two cooling ends (there is no `max`).
 */
export function recordUpdate(
  sample: AttemptSample,
  policy: BreakerPolicy,
  knownLastBucket?: number,
): UpdateParts {
  const width = bucketWidth(policy);
  const start = bucketStart(sample.at, policy);
  // The floor K the condition checks: what this container last saw, less the skew a container
  // behind it may have written since, but no more than QUIET_BUCKETS back.
  const known = (knownLastBucket ?? Number.NEGATIVE_INFINITY) - SKEW_BUCKETS * width;
  const floor = Math.min(start, Math.max(known, start - QUIET_BUCKETS * width));
  const names: Record<string, string> = {
    '#pk': BREAKER_TABLE_KEYS.partitionKey,
    '#exp': BREAKER_TABLE_KEYS.ttlAttribute,
    '#lb': n.lastBucket,
    '#rev': n.rev,
    '#a': attemptsAttribute(start),
  };
  const values: Record<string, unknown> = {
    ':one': 1,
    ':b': start,
    ':exp': expiresAtFor(sample.at, policy),
    ':nowSec': Math.floor(sample.at / 1000),
    ':floor': floor,
  };
  const set = ['#lb = :b', '#exp = :exp'];
  const add = ['#a :one', '#rev :one'];
  if (isCountedFailure(sample)) {
    names['#f'] = failuresAttribute(start);
    add.push('#f :one');
  }
  if (sample.outcome === 'rate_limited') {
    names['#c429'] = n.consecutive429;
    add.push('#c429 :one');
  } else if (sample.outcome === 'ok') {
    names['#c429'] = n.consecutive429;
    values[':zero'] = 0;
    set.push('#c429 = :zero');
  }
  if (sample.probe) {
    // The probe of a probe slot: its outcome moves the probe streak, as `applySample` does.
    names['#ps'] = n.probeStreak;
    if (sample.outcome === 'ok') add.push('#ps :one');
    else {
      values[':zero'] = 0;
      set.push('#ps = :zero');
    }
  }
  let condition =
    'attribute_not_exists(#pk) OR (#exp > :nowSec AND (attribute_not_exists(#lb) OR #lb >= :floor))';
  if (sample.probe && sample.nextProbeAt !== undefined) {
    // The probe's outcome sets the next slot, only while the item still probes (else `applySample` decides).
    names['#ou'] = n.openUntil;
    names['#pr'] = n.probing;
    values[':nextProbe'] = sample.nextProbeAt;
    values[':true'] = true;
    set.push('#ou = :nextProbe');
    condition = `(${condition}) AND #pr = :true`;
  }
  if (sample.retryAfterMs !== undefined && sample.retryAfterMs > 0) {
    names['#cool'] = n.coolUntil;
    values[':cool'] = sample.at + Math.min(sample.retryAfterMs, policy.openMs);
    set.push('#cool = :cool');
    condition = `(${condition}) AND (attribute_not_exists(#cool) OR #cool <= :cool)`;
  }
  const remove: string[] = [];
  const shift = (WINDOW_BUCKETS + SKEW_BUCKETS) * width;
  for (let old = floor + width, k = 0; old <= start; old += width, k++) {
    names[`#oa${k}`] = attemptsAttribute(old - shift);
    names[`#of${k}`] = failuresAttribute(old - shift);
    remove.push(`#oa${k}`, `#of${k}`);
  }
  const removal = remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : '';
  return {
    UpdateExpression: `SET ${set.join(', ')} ADD ${add.join(', ')}${removal}`,
    ConditionExpression: condition,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/** Recovery attributes an opening starts over, as `applyOpening` drops them. */
const RECOVERY_ATTRIBUTES = [n.probeAt, n.rampStart, n.rampStepMs, n.rampSteps] as const;

/**
 * The opening as one conditional `UpdateItem`: it succeeds only while the breaker is closed (or
 * ramping), so of several containers that saw the threshold crossed exactly one opens it. The 429
 * streak starts over and a ramp in progress ends, as `applyOpening` does; with recovery `ramp`
 * it is open until the first probe slot of the probe schedule and recovers through probes.
 */
export function openUpdate(now: number, reason: OpenReason, policy: BreakerPolicy): UpdateParts {
  const ramp = policy.recovery === 'ramp';
  const names: Record<string, string> = {
    '#ou': n.openUntil,
    '#oa': n.openedAt,
    '#or': n.openReason,
    '#c429': n.consecutive429,
    '#exp': BREAKER_TABLE_KEYS.ttlAttribute,
    '#rev': n.rev,
    '#pr': n.probing,
    '#ps': n.probeStreak,
  };
  const remove = RECOVERY_ATTRIBUTES.map((name, k) => {
    names[`#r${k}`] = name;
    return `#r${k}`;
  });
  const set = ['#ou = :until', '#oa = :now', '#or = :reason', '#c429 = :zero', '#exp = :exp'];
  if (ramp) set.push('#pr = :true', '#ps = :zero');
  else remove.push('#pr', '#ps');
  return {
    UpdateExpression: `SET ${set.join(', ')} ADD #rev :one REMOVE ${remove.join(', ')}`,
    ConditionExpression: 'attribute_not_exists(#ou) OR #ou <= :now',
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: {
      ':until': now + (ramp ? firstProbeDelay(policy, reason) : policy.openMs),
      ':now': now,
      ':reason': reason,
      ':zero': 0,
      ':one': 1,
      ':exp': expiresAtFor(now, policy),
      ...(ramp ? { ':true': true } : {}),
    },
  };
}
