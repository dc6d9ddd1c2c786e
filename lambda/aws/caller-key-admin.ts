import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  ScanCommand,
} from '@aws-sdk/lib-dynamodb';
import { SwitchyardError } from '../core/errors.js';
import { isConditionFailure } from '../stores/dynamodb-condition.js';
import { hashItemId, META_ITEM_ID, nameItemId, nameItemSchema, SHA256_HEX } from './caller-key-table.js';

/** A key as the table lists it: its name and SHA-256 (never the key). */
export interface StoredCallerKey {
  name: string;
  hash: string;
  createdAt: string | undefined;
}

/** A key name is taken, or a hash already belongs to another name. */
export class CallerKeyConflictError extends SwitchyardError {
  constructor(message: string) {
    super(message);
    this.name = 'CallerKeyConflictError';
  }
}

/** The key stored under `name`, or undefined. Strongly consistent (the CLI reads what it just wrote). */
export async function getCallerKey(
  client: DynamoDBDocumentClient,
  tableName: string,
  name: string,
): Promise<StoredCallerKey | undefined> {
  const out = await client.send(
    new GetCommand({ TableName: tableName, Key: { id: nameItemId(name) }, ConsistentRead: true }),
  );
  const parsed = nameItemSchema.safeParse(out.Item);
  return parsed.success ? { name, hash: parsed.data.hash, createdAt: parsed.data.createdAt } : undefined;
}

/** Every key in the table, by name. One paginated Scan: the CLI's view, never the API's. */
export async function listCallerKeys(
  client: DynamoDBDocumentClient,
  tableName: string,
): Promise<StoredCallerKey[]> {
  const keys: StoredCallerKey[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await client.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: 'begins_with(id, :name)',
        ExpressionAttributeValues: { ':name': 'name#' },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of out.Items ?? []) {
      const parsed = nameItemSchema.safeParse(item);
      if (parsed.success)
        keys.push({
          name: parsed.data.id.slice('name#'.length),
          hash: parsed.data.hash,
          createdAt: parsed.data.createdAt,
        });
    }
    start = out.LastEvaluatedKey;
  } while (start);
  return keys.sort((a, b) => a.name.localeCompare(b.name));
}

/** What `putCallerKey` did: `added`, `replaced` (the name held another hash), or `unchanged`. */
export type PutOutcome = 'added' | 'replaced' | 'unchanged';

/**
 * Stores `hash` under `name`: first the `key#` item the API reads (only if no other name holds
 * that hash), then the `name#` item. An existing name with another hash is a conflict unless
 * `replace`, which deletes the old `key#` item last, so the old key stops working only once the new
 * one works. The same name and hash again is `unchanged` (migration is idempotent).
 */
export async function putCallerKey(
  client: DynamoDBDocumentClient,
  tableName: string,
  key: { name: string; hash: string; createdAt: string },
  options: { replace?: boolean } = {},
): Promise<PutOutcome> {
  if (!SHA256_HEX.test(key.hash))
    throw new SwitchyardError(`key '${key.name}': the hash is not a SHA-256 hex`);
  const before = await getCallerKey(client, tableName, key.name);
  if (before?.hash === key.hash) return 'unchanged';
  if (before && !options.replace)
    throw new CallerKeyConflictError(
      `key '${key.name}' exists with another hash; pass --replace to replace it`,
    );
  try {
    await client.send(
      new PutCommand({
        TableName: tableName,
        Item: { id: hashItemId(key.hash), name: key.name, createdAt: key.createdAt },
        ConditionExpression: 'attribute_not_exists(id) OR #n = :name',
        ExpressionAttributeNames: { '#n': 'name' },
        ExpressionAttributeValues: { ':name': key.name },
      }),
    );
  } catch (error) {
    if (isConditionFailure(error))
      throw new CallerKeyConflictError(`key '${key.name}': another name already holds the same key`);
    throw error;
  }
  await client.send(
    new PutCommand({
      TableName: tableName,
      Item: { id: nameItemId(key.name), hash: key.hash, createdAt: key.createdAt },
    }),
  );
  if (before) await deleteHashItem(client, tableName, before);
  return before ? 'replaced' : 'added';
}

async function deleteHashItem(client: DynamoDBDocumentClient, tableName: string, key: StoredCallerKey) {
  try {
    await client.send(
      new DeleteCommand({
        TableName: tableName,
        Key: { id: hashItemId(key.hash) },
        // Only this name's item: a hash re-used under another name stays.
        ConditionExpression: '#n = :name',
        ExpressionAttributeNames: { '#n': 'name' },
        ExpressionAttributeValues: { ':name': key.name },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/**
 * Removes the key stored under `name`: the `key#` item first (the key stops working once the
 * containers' caches expire), then the `name#` item. Returns the removed key, or undefined.
 */
export async function revokeCallerKey(
  client: DynamoDBDocumentClient,
  tableName: string,
  name: string,
): Promise<StoredCallerKey | undefined> {
  const before = await getCallerKey(client, tableName, name);
  if (!before) return undefined;
  await deleteHashItem(client, tableName, before);
  await client.send(new DeleteCommand({ TableName: tableName, Key: { id: nameItemId(name) } }));
  return before;
}

/**
 * Writes the `meta` item: from now on the table alone decides (the API stops consulting the SSM
 * parameter on a miss). Keeps the first `authoritativeSince`. Returns true when it wrote the item.
 */
export async function markAuthoritative(
  client: DynamoDBDocumentClient,
  tableName: string,
  by: string,
  at: string,
): Promise<boolean> {
  try {
    await client.send(
      new PutCommand({
        TableName: tableName,
        Item: { id: META_ITEM_ID, authoritativeSince: at, by },
        ConditionExpression: 'attribute_not_exists(id)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
