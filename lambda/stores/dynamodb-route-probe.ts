import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import {
  type AccountProbe,
  type GateClaim,
  type GateOutcome,
  gateEnd,
} from '../core/breaker/account-probe.js';
import { parseAccountRouteId } from '../core/breaker/route-cooling.js';
import { TTL_MARGIN_SECONDS } from './dynamodb-breaker-item.js';
import { BREAKER_TABLE_KEYS } from './dynamodb-breaker-keys.js';
import { isConditionFailure } from './dynamodb-condition.js';

/**
 * The probe gate of an account route (docs/design-notes.md#account-route-items) is its own item in
 * the breaker table: partition `probe#<provider>`, sort key the upstream model id, beside the
 * route's cooling item (`route#<provider>`), so neither write can shorten the other's TTL. `#` is
 * in no pipeline name, so a pipeline's `Query` never meets one.
 */
export const PROBE_PARTITION_PREFIX = 'probe#';

/** Attribute names of a probe-gate item besides the keys. */
export const PROBE_ATTRIBUTES = {
  probeUntil: 'probeUntil',
  probeBy: 'probeBy',
  probeOkAt: 'probeOkAt',
  rev: 'rev',
} as const;

const n = PROBE_ATTRIBUTES;

export function probeKeyOf(route: string): Record<string, string> {
  const { provider, model } = parseAccountRouteId(route);
  return {
    [BREAKER_TABLE_KEYS.partitionKey]: `${PROBE_PARTITION_PREFIX}${provider}`,
    [BREAKER_TABLE_KEYS.sortKey]: model,
  };
}

// Read at the edge: an item written by another version (or by hand) must not crash the router.
const probeItemSchema = z.looseObject({
  [n.probeUntil]: z.number().optional().catch(undefined),
  [n.probeBy]: z.string().optional().catch(undefined),
  [n.probeOkAt]: z.number().optional().catch(undefined),
});

/** The gate kept in a raw item; undefined when the item is unreadable. */
export function probeFromItem(raw: unknown): AccountProbe | undefined {
  const parsed = probeItemSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const { probeUntil, probeBy, probeOkAt } = parsed.data;
  return { probeUntil, probeBy, probeOkAt };
}

const expiresAt = (endMs: number, keepMs: number) => Math.ceil((endMs + keepMs) / 1000) + TTL_MARGIN_SECONDS;

/**
 * Takes the gate in one conditional `UpdateItem`: only while no probe holds it and no failed
 * probe's next slot is ahead, so of every container and pipeline that saw it free exactly one wins.
 */
export async function claimRouteProbeItem(
  client: DynamoDBDocumentClient,
  tableName: string,
  route: string,
  claim: GateClaim,
  keepMs: number,
): Promise<boolean> {
  const until = claim.now + claim.leaseMs;
  try {
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: probeKeyOf(route),
        UpdateExpression: 'SET #pu = :until, #pb = :by, #exp = :exp ADD #rev :one',
        ConditionExpression: 'attribute_not_exists(#pu) OR #pu <= :now',
        ExpressionAttributeNames: {
          '#pu': n.probeUntil,
          '#pb': n.probeBy,
          '#rev': n.rev,
          '#exp': BREAKER_TABLE_KEYS.ttlAttribute,
        },
        ExpressionAttributeValues: {
          ':until': until,
          ':by': claim.pipeline,
          ':now': claim.now,
          ':one': 1,
          ':exp': expiresAt(until, keepMs),
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * Writes a probe's outcome in one conditional `UpdateItem`: the gate shuts until the next slot
 * after a failure and opens (with `probeOkAt`) after a success, unless another pipeline has shut it
 * until later (that shut is kept: undefined).
 */
export async function settleRouteProbeItem(
  client: DynamoDBDocumentClient,
  tableName: string,
  route: string,
  outcome: GateOutcome,
  keepMs: number,
): Promise<AccountProbe | undefined> {
  const end = gateEnd(outcome);
  const names: Record<string, string> = {
    '#pu': n.probeUntil,
    '#pb': n.probeBy,
    '#rev': n.rev,
    '#exp': BREAKER_TABLE_KEYS.ttlAttribute,
  };
  const values: Record<string, unknown> = {
    ':end': end,
    ':by': outcome.pipeline,
    ':one': 1,
    ':exp': expiresAt(Math.max(end, outcome.at), keepMs),
  };
  let set = 'SET #pu = :end, #pb = :by, #exp = :exp';
  if (outcome.ok) {
    names['#ok'] = n.probeOkAt;
    values[':at'] = outcome.at;
    set += ', #ok = :at';
  }
  try {
    const answer = await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: probeKeyOf(route),
        UpdateExpression: `${set} ADD #rev :one`,
        ConditionExpression: 'attribute_not_exists(#pu) OR #pb = :by OR #pu <= :end',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return probeFromItem(answer.Attributes) ?? { probeUntil: end, probeBy: outcome.pipeline };
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}
