import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type EnsureTableOptions, ensureTable, type TableOutcome } from '../../aws/ensure-table.js';
import { JOB_TABLE_KEYS } from './dynamodb-job-keys.js';

/**
 * Creates the jobs table when it is missing, for local endpoints only (in AWS the CDK stack owns
 * it): partition key `jobId` (S), TTL on `expiresAt`. See `ensureTable`.
 */
export function ensureJobTable(
  client: DynamoDBClient,
  tableName: string,
  options: EnsureTableOptions = {},
): Promise<TableOutcome> {
  return ensureTable(client, tableName, { label: 'jobs table', keys: JOB_TABLE_KEYS }, options);
}
