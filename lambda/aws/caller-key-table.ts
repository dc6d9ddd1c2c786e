import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { LocalTableKeys } from './ensure-table.js';

/**
 * The caller-keys table (docs/design-notes.md#caller-keys-in-dynamodb): one string partition key,
 * no sort key. Three kinds of item, told apart by the key's prefix:
 * - `key#<sha256 hex>` → `{ name, createdAt }`: what the API reads, one GetItem per presented key;
 * - `name#<name>` → `{ hash, createdAt }`: lets `keys revoke <name>` and `keys list` find a key;
 * - `meta` → `{ authoritativeSince, by }`: once present, the table alone decides (no SSM fallback).
 * A key itself is never stored, only its SHA-256. The TTL attribute is never set on these items.
 */
export const CALLER_KEY_TABLE_KEYS = {
  partitionKey: 'id',
  ttlAttribute: 'expiresAt',
} as const satisfies LocalTableKeys;

/** Table name when `SWITCHYARD_KEYS_TABLE` is not set (local endpoints only). */
export const DEFAULT_CALLER_KEY_TABLE = 'switchyard-caller-keys';

/** `key#<sha256>`: the item the API reads for a presented key. */
export const hashItemId = (hash: string) => `key#${hash}`;
/** `name#<name>`: the item the CLI reads to revoke or list a key by name. */
export const nameItemId = (name: string) => `name#${name}`;
/** The marker item: the table is the only source of caller keys once it exists. */
export const META_ITEM_ID = 'meta';

/** A `key#` item as stored. */
export const hashItemSchema = z.object({
  id: z.string(),
  name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/),
  createdAt: z.string().optional(),
});

/** A `name#` item as stored. */
export const nameItemSchema = z.object({
  id: z.string(),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  createdAt: z.string().optional(),
});

/** The lowercase hex SHA-256 shape every stored hash has. */
export const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * The name of the key whose SHA-256 is `hash`, or undefined when the table has none. An item that
 * does not have the expected shape counts as none (it can only be a hand-made mistake). Eventually
 * consistent: a key added a second ago may be missed once, and the miss is cached only briefly.
 */
export async function readKeyName(
  client: DynamoDBDocumentClient,
  tableName: string,
  hash: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const out = await client.send(new GetCommand({ TableName: tableName, Key: { id: hashItemId(hash) } }), {
    abortSignal: signal,
  });
  if (out.Item === undefined) return undefined;
  const parsed = hashItemSchema.safeParse(out.Item);
  return parsed.success ? parsed.data.name : undefined;
}

/** True when the table holds the `meta` item (written by `keys migrate --apply` and `keys add`). */
export async function readAuthoritative(
  client: DynamoDBDocumentClient,
  tableName: string,
  signal?: AbortSignal,
): Promise<boolean> {
  const out = await client.send(new GetCommand({ TableName: tableName, Key: { id: META_ITEM_ID } }), {
    abortSignal: signal,
  });
  return out.Item !== undefined;
}
