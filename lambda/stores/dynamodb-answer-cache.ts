import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { type AnswerCache, type CachedAnswer, encodeAnswer } from '../core/last-resort/answer-cache.js';
import { BREAKER_TABLE_KEYS } from './dynamodb-breaker-keys.js';

/**
 * Partition-key prefix of answer items in the breaker table. `#` is outside every pipeline name
 * and every chain, so a breaker `Query` for a pipeline never meets an answer.
 */
export const ANSWER_KEY_PREFIX = 'answer#';
/** Sort key of every answer item. */
export const ANSWER_SORT_KEY = 'answer';

// zod at the edge: an item is only trusted once it has the shape this store writes.
const cachedAnswerSchema = z.object({
  content: z.string().nullable(),
  toolCalls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string() })),
  finishReason: z.enum(['stop', 'length', 'tool_calls', 'content_filter', 'error', 'other']),
  model: z.string(),
});

/**
 * Last good answers in the breaker table (docs/design-notes.md#last-resort-answers-in-dynamodb):
 * one item per request key, `pipeline = answer#<sha256>`, `model = answer`, the answer as one JSON
 * string of at most `maxBytes`, and the table's TTL attribute. A read is one `GetItem`, a write one
 * `PutItem`; an expired item (DynamoDB deletes late, dynalite never) is a miss.
 */
export function createDynamoDbAnswerCache(options: {
  client: DynamoDBDocumentClient;
  tableName: string;
  maxBytes: number;
}): AnswerCache {
  const { client, tableName, maxBytes } = options;
  const key = (hash: string) => ({
    [BREAKER_TABLE_KEYS.partitionKey]: `${ANSWER_KEY_PREFIX}${hash}`,
    [BREAKER_TABLE_KEYS.sortKey]: ANSWER_SORT_KEY,
  });
  return {
    async get(hash, now): Promise<CachedAnswer | undefined> {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: key(hash) }));
      if (!Item || typeof Item.expiresAtMs !== 'number' || Item.expiresAtMs <= now) return undefined;
      const parsed = cachedAnswerSchema.safeParse(JSON.parse(String(Item.answer)));
      return parsed.success ? parsed.data : undefined;
    },
    async put(hash, answer, expiresAt) {
      const encoded = encodeAnswer(answer);
      if (Buffer.byteLength(encoded) > maxBytes) return;
      const item = {
        ...key(hash),
        answer: encoded,
        expiresAtMs: expiresAt,
        [BREAKER_TABLE_KEYS.ttlAttribute]: Math.ceil(expiresAt / 1000),
      };
      await client.send(new PutCommand({ TableName: tableName, Item: item }));
    },
  };
}
