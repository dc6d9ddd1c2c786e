import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { SwitchyardError } from '../core/errors.js';
import { BREAKER_TABLE_KEYS } from './dynamodb-breaker-keys.js';

/** What `ensureBreakerTable` found. */
export type TableOutcome = 'exists' | 'created';

/** How long `ensureBreakerTable` waits for a new table. */
export interface EnsureTableOptions {
  /** How long to wait for a new table to become ACTIVE, in ms. Default 15000. */
  waitMs?: number;
  /** Pause between status checks, in ms. Default 100. */
  pollMs?: number;
}

const isNamed = (error: unknown, name: string) => error instanceof Error && error.name === name;

/**
 * Creates the breaker table when it is missing, for local endpoints only (in AWS the CDK stack
 * owns it): pay-per-request, keys from `BREAKER_TABLE_KEYS`, then TTL on `expiresAt`. dynalite
 * has no `UpdateTimeToLive`; that failure is tolerated, because readers ignore expired items
 * themselves. Safe when several gateways start at once: a concurrent creation is waited for.
 */
export async function ensureBreakerTable(
  client: DynamoDBClient,
  tableName: string,
  options: EnsureTableOptions = {},
): Promise<TableOutcome> {
  const status = await tableStatus(client, tableName);
  if (status === 'ACTIVE') return 'exists';
  if (status === undefined) {
    try {
      await client.send(
        new CreateTableCommand({
          TableName: tableName,
          BillingMode: 'PAY_PER_REQUEST',
          KeySchema: [
            { AttributeName: BREAKER_TABLE_KEYS.partitionKey, KeyType: 'HASH' },
            { AttributeName: BREAKER_TABLE_KEYS.sortKey, KeyType: 'RANGE' },
          ],
          AttributeDefinitions: [
            { AttributeName: BREAKER_TABLE_KEYS.partitionKey, AttributeType: 'S' },
            { AttributeName: BREAKER_TABLE_KEYS.sortKey, AttributeType: 'S' },
          ],
        }),
      );
    } catch (error) {
      // Another gateway started at the same moment and created it first.
      if (!isNamed(error, 'ResourceInUseException')) throw error;
    }
  }
  await waitUntilActive(client, tableName, options.waitMs ?? 15_000, options.pollMs ?? 100);
  if (status !== undefined) return 'exists';
  try {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: BREAKER_TABLE_KEYS.ttlAttribute, Enabled: true },
      }),
    );
  } catch {
    // dynalite does not know the operation; the store never relies on TTL deletion.
  }
  return 'created';
}

async function tableStatus(client: DynamoDBClient, tableName: string): Promise<string | undefined> {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    return Table?.TableStatus ?? 'UNKNOWN';
  } catch (error) {
    if (isNamed(error, 'ResourceNotFoundException')) return undefined;
    throw error;
  }
}

async function waitUntilActive(client: DynamoDBClient, tableName: string, waitMs: number, pollMs: number) {
  const until = Date.now() + waitMs;
  for (;;) {
    if ((await tableStatus(client, tableName)) === 'ACTIVE') return;
    if (Date.now() > until) {
      throw new SwitchyardError(`breaker table '${tableName}' did not become ACTIVE within ${waitMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
