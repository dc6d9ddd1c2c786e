import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { SwitchyardError } from '../../core/errors.js';
import type { EnsureTableOptions, TableOutcome } from '../../stores/create-breaker-table.js';
import { JOB_TABLE_KEYS } from './dynamodb-job-keys.js';

const isNamed = (error: unknown, name: string) => error instanceof Error && error.name === name;

async function tableExists(client: DynamoDBClient, tableName: string): Promise<boolean> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return true;
  } catch (error) {
    if (isNamed(error, 'ResourceNotFoundException')) return false;
    throw error;
  }
}

/**
 * Creates the jobs table when it is missing, for local endpoints only (in AWS the CDK stack owns
 * it): pay-per-request, partition key `jobId` (S), then TTL on `expiresAt`. dynalite has no
 * `UpdateTimeToLive`; that failure is tolerated, because the store ignores expired items itself.
 * Safe when several processes start at once: a concurrent creation is waited for. Waits for
 * ACTIVE with the SDK's own waiter (`options.waitMs`, default 15000 ms; `options.pollMs`, default
 * 100 ms, is its first pause).
 */
export async function ensureJobTable(
  client: DynamoDBClient,
  tableName: string,
  options: EnsureTableOptions = {},
): Promise<TableOutcome> {
  const existed = await tableExists(client, tableName);
  if (!existed) {
    try {
      await client.send(
        new CreateTableCommand({
          TableName: tableName,
          BillingMode: 'PAY_PER_REQUEST',
          KeySchema: [{ AttributeName: JOB_TABLE_KEYS.partitionKey, KeyType: 'HASH' }],
          AttributeDefinitions: [{ AttributeName: JOB_TABLE_KEYS.partitionKey, AttributeType: 'S' }],
        }),
      );
    } catch (error) {
      // Another process started at the same moment and created it first.
      if (!isNamed(error, 'ResourceInUseException')) throw error;
    }
  }
  const waitMs = options.waitMs ?? 15_000;
  const pollMs = options.pollMs ?? 100;
  const waited = await waitUntilTableExists(
    { client, maxWaitTime: Math.max(1, waitMs / 1000), minDelay: pollMs / 1000, maxDelay: 1 },
    { TableName: tableName },
  ).catch((error: unknown) => ({ state: 'FAILURE', reason: error }));
  if (waited.state !== 'SUCCESS') {
    throw new SwitchyardError(`jobs table '${tableName}' did not become ACTIVE within ${waitMs} ms`, {
      cause: waited.reason,
    });
  }
  if (existed) return 'exists';
  try {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: JOB_TABLE_KEYS.ttlAttribute, Enabled: true },
      }),
    );
  } catch {
    // dynalite does not know the operation; the store never relies on TTL deletion.
  }
  return 'created';
}
