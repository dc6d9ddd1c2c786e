import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type EnsureTableOptions, ensureTable, type TableOutcome } from '../aws/ensure-table.js';
import { BREAKER_TABLE_KEYS } from './dynamodb-breaker-keys.js';

/**
 * Creates the breaker table when it is missing, for local endpoints only (in AWS the CDK stack
 * owns it): keys from `BREAKER_TABLE_KEYS`, TTL on `expiresAt`. See `ensureTable`.
 */
export function ensureBreakerTable(
  client: DynamoDBClient,
  tableName: string,
  options: EnsureTableOptions = {},
): Promise<TableOutcome> {
  return ensureTable(client, tableName, { label: 'breaker table', keys: BREAKER_TABLE_KEYS }, options);
}
