import { type DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AdmissionStore, CounterSlot } from '../core/admission/admission-store.js';
import { BREAKER_TABLE_KEYS } from './dynamodb-breaker-keys.js';
import { isConditionFailure } from './dynamodb-condition.js';

/**
 * Partition-key prefix of admission counters in the breaker table. `#` is outside every pipeline
 * name, so a breaker `Query` for a pipeline never meets a counter.
 */
export const ADMISSION_KEY_PREFIX = 'admission#';

const { partitionKey, sortKey, ttlAttribute } = BREAKER_TABLE_KEYS;

/**
 * Admission counters in the breaker table (docs/design-notes.md#admission-counters-in-dynamodb):
 * one item per bucket, `pipeline = admission#<counter>`, `model = <bucket>`, the value in `n`,
 * and the table's TTL attribute. A reservation is one `UpdateItem` that `ADD`s under a ceiling
 * condition, so concurrent gateways never pass a cap together; a settlement is one unconditional
 * `ADD`; a sliding-minute read is one strongly consistent `Query`. An expired item is ignored.
 */
export function createDynamoDbAdmissionStore(options: {
  client: DynamoDBDocumentClient;
  tableName: string;
}): AdmissionStore {
  const { client, tableName } = options;
  const key = (slot: CounterSlot) => ({
    [partitionKey]: `${ADMISSION_KEY_PREFIX}${slot.counter}`,
    [sortKey]: slot.bucket,
  });
  const update = (slot: CounterSlot, delta: number) => ({
    TableName: tableName,
    Key: key(slot),
    UpdateExpression: 'ADD n :delta SET expiresAtMs = :expiresAtMs, #ttl = :ttl',
    ExpressionAttributeNames: { '#ttl': ttlAttribute },
    ExpressionAttributeValues: {
      ':delta': delta,
      ':expiresAtMs': slot.expiresAt,
      ':ttl': Math.ceil(slot.expiresAt / 1000),
    } as Record<string, number>,
  });

  return {
    async read(counter, fromBucket, now) {
      const out = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: '#pk = :pk AND #sk >= :from',
          ExpressionAttributeNames: { '#pk': partitionKey, '#sk': sortKey },
          ExpressionAttributeValues: { ':pk': `${ADMISSION_KEY_PREFIX}${counter}`, ':from': fromBucket },
          ConsistentRead: true,
        }),
      );
      const found = new Map<string, number>();
      for (const item of out.Items ?? []) {
        if (typeof item.expiresAtMs === 'number' && item.expiresAtMs <= now) continue;
        if (typeof item.n === 'number') found.set(String(item[sortKey]), item.n);
      }
      return found;
    },
    async take(slot, amount, ceiling) {
      const base = update(slot, amount);
      try {
        const out = await client.send(
          new UpdateCommand({
            ...base,
            ConditionExpression: 'attribute_not_exists(n) OR n <= :most',
            ExpressionAttributeValues: { ...base.ExpressionAttributeValues, ':most': ceiling - amount },
            ReturnValues: 'UPDATED_NEW',
          }),
        );
        return Number(out.Attributes?.n ?? amount);
      } catch (error) {
        if (isConditionFailure(error)) return undefined;
        throw error;
      }
    },
    async add(slot, delta) {
      await client.send(new UpdateCommand(update(slot, delta)));
    },
  };
}
