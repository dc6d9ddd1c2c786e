import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { JOB_TABLE_KEYS } from './dynamodb-job-keys.js';

/**
 * Public-id links of scheduled jobs, stored in the jobs table itself (no index, no schema change):
 * an item keyed `pub#<publicId>` naming the internal `jobId`. `#` never appears in a job id the
 * API accepts, so a link can never be read as a job, nor a job as a link.
 */
const aliasKey = (publicId: string) => ({ [JOB_TABLE_KEYS.partitionKey]: `pub#${publicId}` });

/** Writes (or rewrites, idempotently) the link `publicId` → `jobId`, expiring with the job. */
export async function putJobAlias(
  client: DynamoDBDocumentClient,
  tableName: string,
  link: { publicId: string; jobId: string; expiresAt: number },
): Promise<void> {
  await client.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...aliasKey(link.publicId), target: link.jobId, [JOB_TABLE_KEYS.ttlAttribute]: link.expiresAt },
    }),
  );
}

/** The internal job id a public id links to, or undefined (no link, or expired at `nowSec`). */
export async function readJobAlias(
  client: DynamoDBDocumentClient,
  tableName: string,
  publicId: string,
  nowSec: number,
): Promise<string | undefined> {
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: aliasKey(publicId), ConsistentRead: true }),
  );
  const target = Item?.target;
  const expiresAt = Item?.[JOB_TABLE_KEYS.ttlAttribute];
  if (typeof target !== 'string' || typeof expiresAt !== 'number' || expiresAt <= nowSec) return undefined;
  return target;
}
