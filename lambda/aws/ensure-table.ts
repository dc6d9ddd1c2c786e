import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { SwitchyardError } from '../core/errors.js';

/** What `ensureTable` found. */
export type TableOutcome = 'exists' | 'created';

/** How long `ensureTable` waits for a new table. */
export interface EnsureTableOptions {
  /** How long to wait for a new table to become ACTIVE, in ms. Default 15000. */
  waitMs?: number;
  /** Pause between status checks, in ms. Default 100. */
  pollMs?: number;
}

/** The keys of a table Switchyard creates on a local endpoint (all strings), and its TTL attribute. */
export interface LocalTableKeys {
  partitionKey: string;
  sortKey?: string;
  ttlAttribute: string;
}

const isNamed = (error: unknown, name: string) => error instanceof Error && error.name === name;

/**
 * Creates a table when it is missing, for local endpoints only (in AWS the CDK stack owns every
 * table): pay-per-request, `keys` as string attributes, then TTL on `keys.ttlAttribute`. dynalite
 * has no `UpdateTimeToLive`; that failure is tolerated, because readers ignore expired items
 * themselves. Safe when several processes start at once: a concurrent creation is waited for.
 * A table still being deleted is waited out and created again. `label` names the table in the
 * error when it does not become ACTIVE in time.
 */
export async function ensureTable(
  client: DynamoDBClient,
  tableName: string,
  table: { label: string; keys: LocalTableKeys },
  options: EnsureTableOptions = {},
): Promise<TableOutcome> {
  let status = await tableStatus(client, tableName);
  if (status === 'ACTIVE') return 'exists';
  // A table being deleted (one lost while the gateway ran) never becomes ACTIVE again: wait until
  // it is gone, then create it anew.
  if (status === 'DELETING') status = await goneOrStatus(client, tableName, options);
  if (status === undefined) {
    const keys = [table.keys.partitionKey, ...(table.keys.sortKey ? [table.keys.sortKey] : [])];
    try {
      await client.send(
        new CreateTableCommand({
          TableName: tableName,
          BillingMode: 'PAY_PER_REQUEST',
          KeySchema: keys.map((name, i) => ({ AttributeName: name, KeyType: i === 0 ? 'HASH' : 'RANGE' })),
          AttributeDefinitions: keys.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        }),
      );
    } catch (error) {
      // Another process started at the same moment and created it first.
      if (!isNamed(error, 'ResourceInUseException')) throw error;
    }
  }
  const waitMs = options.waitMs ?? 15_000;
  if (!(await becameActive(client, tableName, waitMs, options.pollMs ?? 100))) {
    throw new SwitchyardError(`${table.label} '${tableName}' did not become ACTIVE within ${waitMs} ms`);
  }
  if (status !== undefined) return 'exists';
  try {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: table.keys.ttlAttribute, Enabled: true },
      }),
    );
  } catch {
    // dynalite does not know the operation; the stores never rely on TTL deletion.
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

/** Polls a DELETING table until it is gone (undefined) or shows another status; fails after `waitMs`. */
async function goneOrStatus(
  client: DynamoDBClient,
  tableName: string,
  options: EnsureTableOptions,
): Promise<string | undefined> {
  const waitMs = options.waitMs ?? 15_000;
  const until = Date.now() + waitMs;
  for (;;) {
    const status = await tableStatus(client, tableName);
    if (status !== 'DELETING') return status;
    if (Date.now() > until)
      throw new SwitchyardError(`table '${tableName}' was still being deleted after ${waitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 100));
  }
}

async function becameActive(client: DynamoDBClient, tableName: string, waitMs: number, pollMs: number) {
  const until = Date.now() + waitMs;
  for (;;) {
    if ((await tableStatus(client, tableName)) === 'ACTIVE') return true;
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
