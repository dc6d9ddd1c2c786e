import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { JobStatus } from '../../core/jobs/job.js';
import { type JobQuota, JobQuotaExceededError } from '../../core/jobs/job-quota.js';
import { isFinished } from '../../core/jobs/job-transitions.js';
import { isConditionFailure } from '../../stores/dynamodb-condition.js';
import { JOB_TABLE_KEYS } from './dynamodb-job-keys.js';

/**
 * Per-key job quotas in the jobs table itself (no index, no schema change): one item per caller
 * key, keyed `quota#<key>`, holding the ids of the key's unfinished jobs as a string set. `#`
 * never appears in a job id the API accepts, so a quota item can never be read as a job.
 *
 * A new job joins the set in one conditional `UpdateItem` (under `max` members, or already a
 * member: an idempotent repeat), so concurrent gateways never pass a quota together. A finished job
 * leaves it (best effort). Whatever the set still names that is no longer unfinished — a job that
 * expired unrun, a leave that failed, a create that never happened — is pruned when the set looks
 * full, so the count heals itself and a key is never locked out by ghosts.
 */
const quotaKey = (owner: string) => ({ [JOB_TABLE_KEYS.partitionKey]: `quota#${owner}` });

/** BatchGetItem reads at most 100 keys a call. */
const BATCH = 100;

/** Where the quota items live. */
export interface QuotaTable {
  client: DynamoDBDocumentClient;
  tableName: string;
}

/**
 * Counts `jobId` against `quota` (it must not be stored yet, or be a repeat of one that is), keeping
 * the item until `expiresAt` (epoch seconds, the job's). Throws {@link JobQuotaExceededError} when
 * the key has `quota.max` unfinished jobs even after pruning.
 */
export async function takeQuotaSlot(
  table: QuotaTable,
  quota: JobQuota,
  jobId: string,
  expiresAt: number,
  nowSec: number,
): Promise<void> {
  if (await tryTake(table, quota, jobId, expiresAt)) return;
  if ((await prune(table, quota.owner, nowSec)) > 0 && (await tryTake(table, quota, jobId, expiresAt)))
    return;
  throw new JobQuotaExceededError(quota);
}

/** Removes a finished job from its owner's set. Best effort: a failure is pruned later. */
export async function releaseQuotaSlot(table: QuotaTable, owner: string, jobId: string): Promise<void> {
  try {
    await removeMembers(table, owner, [jobId]);
  } catch {
    // The set still names a finished job: the next prune removes it.
  }
}

async function tryTake(
  table: QuotaTable,
  quota: JobQuota,
  jobId: string,
  expiresAt: number,
): Promise<boolean> {
  try {
    await table.client.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: quotaKey(quota.owner),
        UpdateExpression: 'ADD #jobs :ids SET #ttl = :expiresAt',
        ConditionExpression: 'attribute_not_exists(#jobs) OR size(#jobs) < :max OR contains(#jobs, :id)',
        ExpressionAttributeNames: { '#jobs': 'jobs', '#ttl': JOB_TABLE_KEYS.ttlAttribute },
        ExpressionAttributeValues: {
          ':ids': new Set([jobId]),
          ':id': jobId,
          ':max': quota.max,
          ':expiresAt': expiresAt,
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

async function removeMembers(table: QuotaTable, owner: string, jobIds: readonly string[]): Promise<void> {
  await table.client
    .send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: quotaKey(owner),
        UpdateExpression: 'DELETE #jobs :ids',
        ConditionExpression: 'attribute_exists(#jobs)',
        ExpressionAttributeNames: { '#jobs': 'jobs' },
        ExpressionAttributeValues: { ':ids': new Set(jobIds) },
      }),
    )
    .catch((error: unknown) => {
      if (!isConditionFailure(error)) throw error;
    });
}

/** Drops from `owner`'s set every id whose job is gone, expired at `nowSec` or finished; how many. */
async function prune(table: QuotaTable, owner: string, nowSec: number): Promise<number> {
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.tableName, Key: quotaKey(owner), ConsistentRead: true }),
  );
  const members = Item?.jobs instanceof Set ? [...(Item.jobs as Set<unknown>)].map(String) : [];
  const unfinished = new Set<string>();
  for (let i = 0; i < members.length; i += BATCH) {
    for (const id of await unfinishedAmong(table, members.slice(i, i + BATCH), nowSec)) unfinished.add(id);
  }
  const stale = members.filter((id) => !unfinished.has(id));
  if (stale.length > 0) await removeMembers(table, owner, stale);
  return stale.length;
}

/** The ids among `ids` (at most 100) whose job is stored, live and not finished. */
async function unfinishedAmong(table: QuotaTable, ids: readonly string[], nowSec: number): Promise<string[]> {
  const { partitionKey, ttlAttribute } = JOB_TABLE_KEYS;
  let keys: Record<string, unknown>[] = ids.map((id) => ({ [partitionKey]: id }));
  const found: string[] = [];
  // A throttled batch hands back what it did not read: ask again for those.
  for (let round = 0; keys.length > 0 && round < 5; round += 1) {
    const out = await table.client.send(
      new BatchGetCommand({
        RequestItems: {
          [table.tableName]: {
            Keys: keys,
            ConsistentRead: true,
            ProjectionExpression: '#pk, #st, #ttl',
            ExpressionAttributeNames: { '#pk': partitionKey, '#st': 'status', '#ttl': ttlAttribute },
          },
        },
      }),
    );
    for (const item of out.Responses?.[table.tableName] ?? []) {
      const status = item.status as JobStatus;
      const live = typeof item[ttlAttribute] === 'number' && (item[ttlAttribute] as number) > nowSec;
      if (live && !isFinished(status)) found.push(String(item[partitionKey]));
    }
    keys = (out.UnprocessedKeys?.[table.tableName]?.Keys as Record<string, unknown>[] | undefined) ?? [];
  }
  // Ids not read after five rounds count as unfinished: a quota errs on the side of refusing.
  return [...found, ...keys.map((k) => String(k[partitionKey]))];
}
