import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { markAuthoritative, putCallerKey } from '../../lambda/aws/caller-key-admin.js';
import { CALLER_KEY_TABLE_KEYS } from '../../lambda/aws/caller-key-table.js';
import { createDocumentClient } from '../../lambda/aws/dynamodb-client.js';
import { ensureTable } from '../../lambda/aws/ensure-table.js';
import { sha256Hex } from '../../lambda/http/caller-auth.js';

/** A document client for dynalite at `endpoint` (it checks no signature). Destroy it when done. */
export function dynaliteDocuments(endpoint: string): {
  client: DynamoDBClient;
  documents: DynamoDBDocumentClient;
  destroy(): void;
} {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'dynalite', secretAccessKey: 'dynalite' },
  });
  return { client, documents: createDocumentClient(client), destroy: () => client.destroy() };
}

/**
 * Creates the caller-keys table `tableName` in dynalite and stores `keys` (name → the key itself,
 * hashed here) as `switchyard keys add` would; with `authoritative` (the default) also the `meta`
 * item, as after `switchyard keys migrate --apply`.
 */
export async function seedCallerKeyTable(
  endpoint: string,
  tableName: string,
  keys: Readonly<Record<string, string>>,
  options: { authoritative?: boolean } = {},
): Promise<void> {
  const { client, documents, destroy } = dynaliteDocuments(endpoint);
  try {
    await ensureTable(client, tableName, {
      label: 'caller keys',
      keys: CALLER_KEY_TABLE_KEYS,
    });
    const createdAt = new Date(0).toISOString();
    for (const [name, key] of Object.entries(keys))
      await putCallerKey(documents, tableName, { name, hash: sha256Hex(key), createdAt });
    if (options.authoritative ?? true) await markAuthoritative(documents, tableName, 'test', createdAt);
  } finally {
    destroy();
  }
}
