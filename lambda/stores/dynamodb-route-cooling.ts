import { BatchGetCommand, type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import {
  coolingEnd,
  parseAccountRouteId,
  type RateLimitSample,
  type RouteCooling,
  type RouteCoolingPolicy,
} from '../core/breaker/route-cooling.js';
import { TTL_MARGIN_SECONDS } from './dynamodb-breaker-item.js';
import { BREAKER_TABLE_KEYS } from './dynamodb-breaker-keys.js';
import { isConditionFailure } from './dynamodb-condition.js';
import { probeFromItem, probeKeyOf } from './dynamodb-route-probe.js';

/**
 * Account-route items live in the breaker table under partition `route#<provider>`, sort key the
 * upstream model id (docs/design-notes.md#account-route-items). `#` is in no pipeline name and no
 * chain, so a pipeline's `Query` never meets one.
 */
export const ROUTE_PARTITION_PREFIX = 'route#';

/** Attribute names of an account-route item besides the keys. */
export const ROUTE_ATTRIBUTES = {
  coolUntil: 'coolUntil',
  cooledAt: 'cooledAt',
  cooledBy: 'cooledBy',
  rev: 'rev',
} as const;

/** BatchGetItem reads at most 100 keys per call. */
const BATCH_LIMIT = 100;

const n = ROUTE_ATTRIBUTES;

export function routeKeyOf(route: string): Record<string, string> {
  const { provider, model } = parseAccountRouteId(route);
  return {
    [BREAKER_TABLE_KEYS.partitionKey]: `${ROUTE_PARTITION_PREFIX}${provider}`,
    [BREAKER_TABLE_KEYS.sortKey]: model,
  };
}

// Read at the edge: an item written by another version (or by hand) must not crash the router.
const routeItemSchema = z.looseObject({
  [BREAKER_TABLE_KEYS.partitionKey]: z.string(),
  [BREAKER_TABLE_KEYS.sortKey]: z.string(),
  [n.coolUntil]: z.number().optional().catch(undefined),
  [n.cooledAt]: z.number().optional().catch(undefined),
  [n.cooledBy]: z.string().optional().catch(undefined),
  [BREAKER_TABLE_KEYS.ttlAttribute]: z.number().optional().catch(undefined),
});

/**
 * One `BatchGetItem` per 50 routes (one for any chain): each route's cooling item and its probe
 * gate item; expired items are left out.
 */
export async function readRouteItems(
  client: DynamoDBDocumentClient,
  tableName: string,
  routes: readonly string[],
  now: number,
  consistentRead: boolean,
): Promise<Map<string, RouteCooling>> {
  const found = new Map<string, RouteCooling>();
  const keyText = (key: Record<string, unknown>) =>
    JSON.stringify([key[BREAKER_TABLE_KEYS.partitionKey], key[BREAKER_TABLE_KEYS.sortKey]]);
  const byKey = new Map<string, { route: string; kind: 'cooling' | 'probe' }>();
  for (const route of routes) {
    byKey.set(keyText(routeKeyOf(route)), { route, kind: 'cooling' });
    byKey.set(keyText(probeKeyOf(route)), { route, kind: 'probe' });
  }
  const unique = [...byKey.keys()];
  for (let i = 0; i < unique.length; i += BATCH_LIMIT) {
    let keys: Record<string, unknown>[] | undefined = unique.slice(i, i + BATCH_LIMIT).map((k) => {
      const [partition, sort] = JSON.parse(k) as [string, string];
      return { [BREAKER_TABLE_KEYS.partitionKey]: partition, [BREAKER_TABLE_KEYS.sortKey]: sort };
    });
    // Unprocessed keys (throttling) are asked again at once, a few times; what stays unread is absent.
    for (let round = 0; keys && keys.length > 0 && round < 3; round++) {
      const answer = await client.send(
        new BatchGetCommand({
          RequestItems: { [tableName]: { Keys: keys, ConsistentRead: consistentRead } },
        }),
      );
      for (const raw of answer.Responses?.[tableName] ?? []) {
        const parsed = routeItemSchema.safeParse(raw);
        if (!parsed.success) continue;
        const item = parsed.data;
        const ttl = item[BREAKER_TABLE_KEYS.ttlAttribute];
        if (typeof ttl === 'number' && ttl * 1000 <= now) continue;
        const at = byKey.get(keyText(item));
        if (at === undefined) continue;
        const state = found.get(at.route) ?? {};
        if (at.kind === 'probe') {
          const probe = probeFromItem(raw);
          if (probe) found.set(at.route, { ...state, probe });
        } else {
          found.set(at.route, {
            ...state,
            coolUntil: item.coolUntil,
            cooledAt: item.cooledAt,
            cooledBy: item.cooledBy,
          });
        }
      }
      keys = answer.UnprocessedKeys?.[tableName]?.Keys as Record<string, unknown>[] | undefined;
    }
  }
  return found;
}

/**
 * One conditional `UpdateItem` per 429: it sets the cooling end only when it is later than the
 * stored one (an update expression has no `max`), so of twenty pipelines that get the same 429 at
 * once every write is one call and the latest end wins. When the condition fails a later end is
 * already stored: nothing more to write, and the answer is this writer's own end (the reader sees
 * the later one at its next read).
 */
export async function coolRouteItem(
  client: DynamoDBDocumentClient,
  tableName: string,
  route: string,
  sample: RateLimitSample,
  policy: RouteCoolingPolicy,
): Promise<RouteCooling> {
  const until = coolingEnd(sample, policy);
  const mine: RouteCooling = { coolUntil: until, cooledAt: sample.at, cooledBy: sample.pipeline };
  try {
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: routeKeyOf(route),
        UpdateExpression: 'SET #cu = :until, #ca = :at, #cb = :by, #exp = :exp ADD #rev :one',
        ConditionExpression: 'attribute_not_exists(#cu) OR #cu < :until',
        ExpressionAttributeNames: {
          '#cu': n.coolUntil,
          '#ca': n.cooledAt,
          '#cb': n.cooledBy,
          '#rev': n.rev,
          '#exp': BREAKER_TABLE_KEYS.ttlAttribute,
        },
        ExpressionAttributeValues: {
          ':until': until,
          ':at': sample.at,
          ':by': sample.pipeline,
          ':one': 1,
          ':exp': Math.ceil(until / 1000) + TTL_MARGIN_SECONDS,
        },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  return mine;
}
