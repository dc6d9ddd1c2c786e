import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { JOB_STATUSES, type JobRecord, type JobResult, type JobRun } from '../../core/jobs/job.js';
import type { ClaimResult, JobStore } from '../../core/jobs/job-ports.js';
import type { JobQuota } from '../../core/jobs/job-quota.js';
import { isFinished } from '../../core/jobs/job-transitions.js';
import type { Clock } from '../../core/time.js';
import { isConditionFailure } from '../../stores/dynamodb-condition.js';
import { MalformedJobError } from '../malformed-job-error.js';
import { putJobAlias, readJobAlias } from './dynamodb-job-aliases.js';
import { JOB_TABLE_KEYS } from './dynamodb-job-keys.js';
import { releaseQuotaSlot, takeQuotaSlot } from './dynamodb-job-quota.js';

/** What `createDynamoDbJobStore` needs: a document client and the table name. */
export interface DynamoDbJobStoreOptions {
  /** A document client (`DynamoDBDocumentClient.from(...)`); the store never closes it. */
  client: DynamoDBDocumentClient;
  tableName: string;
  /**
   * The clock `get` uses to ignore expired items (the other calls are given `now`). Default the
   * system clock.
   */
  clock?: Clock | undefined;
}

// Read at the edge: only what the store's own decisions depend on is checked; the rest of the
// item is what `create` wrote from a JobRecord.
const itemShape = z.looseObject({
  jobId: z.string().min(1),
  status: z.enum(JOB_STATUSES),
  runs: z.array(z.unknown()),
  [JOB_TABLE_KEYS.ttlAttribute]: z.number(),
});

/** Epoch seconds of `now` (ms), as the TTL attribute counts. */
const epochSeconds = (now: number) => Math.floor(now / 1000);

/** DynamoDB deletes expired items up to days late (dynalite never does): readers decide themselves. */
const isExpired = (item: Record<string, unknown>, now: number): boolean => {
  const expiresAt = item[JOB_TABLE_KEYS.ttlAttribute];
  return typeof expiresAt === 'number' && expiresAt <= epochSeconds(now);
};

function toRecord(item: Record<string, unknown>): JobRecord {
  const parsed = itemShape.safeParse(item);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new MalformedJobError(
      String(item[JOB_TABLE_KEYS.partitionKey]),
      `${issue?.path.join('.')}: ${issue?.message}`,
      'item',
    );
  }
  return parsed.data as unknown as JobRecord;
}

/**
 * JSON values only: `undefined` fields (optional ones set to undefined) are dropped, which the
 * marshaller would otherwise reject unless the caller's client was built with
 * `removeUndefinedValues`.
 */
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const key = (jobId: string) => ({ [JOB_TABLE_KEYS.partitionKey]: jobId });

/** The names every expression uses: `status` is a DynamoDB reserved word. */
const NAMES = {
  '#pk': JOB_TABLE_KEYS.partitionKey,
  '#ttl': JOB_TABLE_KEYS.ttlAttribute,
  '#status': 'status',
  '#updatedAt': 'updatedAt',
} as const;

/** The item exists and has not expired (`:nowSec` in epoch seconds). */
const LIVE = 'attribute_exists(#pk) AND #ttl > :nowSec';

/**
 * Jobs in DynamoDB, one item per job under partition key `jobId` (see the README, "Jobs storage").
 * Every status change is one conditional write, so two workers, or a replay racing a retry, can
 * never both run or both deliver a job. Items past their TTL (`expiresAt`, epoch seconds) are
 * treated as absent everywhere, since DynamoDB deletes them late and dynalite never does.
 *
 * Errors other than a failed condition (throttling, network, a missing table) are thrown: the
 * worker leaves the message on the queue.
 */
export class DynamoDbJobStore implements JobStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly clock: Clock;

  constructor(options: DynamoDbJobStoreOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
    this.clock = options.clock ?? { now: () => Date.now() };
  }

  async create(record: JobRecord, quota?: JobQuota): Promise<boolean> {
    const table = { client: this.client, tableName: this.tableName };
    if (quota)
      await takeQuotaSlot(table, quota, record.jobId, record.expiresAt, epochSeconds(record.createdAt));
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: plain(record),
          // An expired item is the deleted item it soon will be: a new job may take its id.
          ConditionExpression: 'attribute_not_exists(#pk) OR #ttl <= :nowSec',
          ExpressionAttributeNames: { '#pk': NAMES['#pk'], '#ttl': NAMES['#ttl'] },
          ExpressionAttributeValues: { ':nowSec': epochSeconds(record.createdAt) },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async get(jobId: string): Promise<JobRecord | undefined> {
    return this.read(jobId, this.clock.now());
  }

  async getByPublicId(publicId: string): Promise<JobRecord | undefined> {
    const now = this.clock.now();
    const jobId = await readJobAlias(this.client, this.tableName, publicId, epochSeconds(now));
    const record = jobId === undefined ? undefined : await this.read(jobId, now);
    // The record must claim the id back: a link alone never exposes a job.
    return record?.publicId === publicId ? record : undefined;
  }

  async linkPublicId(publicId: string, jobId: string, expiresAt: number): Promise<void> {
    await putJobAlias(this.client, this.tableName, { publicId, jobId, expiresAt });
  }

  async markEnqueued(jobId: string, now: number): Promise<void> {
    // Conditional, so that a vanished job is not re-created as an item holding only these fields.
    await this.update(jobId, now, {
      UpdateExpression: 'SET enqueuedAt = :now, #updatedAt = :now',
      ConditionExpression: LIVE,
    });
  }

  async claim(jobId: string, now: number, leaseMs: number): Promise<ClaimResult> {
    // The POST's reservation leaves the item in the claiming write (ALL_OLD still shows it), so
    // exactly one run ever receives it.
    const old = await this.update(jobId, now, {
      UpdateExpression: 'SET #status = :running, leaseUntil = :lease, #updatedAt = :now REMOVE reservation',
      ConditionExpression: `${LIVE} AND (#status IN (:queued, :retrying) OR (#status = :running AND leaseUntil < :now))`,
      ExpressionAttributeValues: {
        ':running': 'running',
        ':queued': 'queued',
        ':retrying': 'retrying',
        ':lease': now + leaseMs,
      },
      ReturnValues: 'ALL_OLD',
    });
    if (old) {
      const claimed = { ...old, status: 'running', leaseUntil: now + leaseMs, updatedAt: now };
      return { kind: 'claimed', record: toRecord(claimed) };
    }
    // The condition failed: one consistent read tells why.
    const record = await this.read(jobId, now);
    if (!record) return { kind: 'missing' };
    if (isFinished(record.status)) return { kind: 'finished', record };
    // A live lease, or a state that changed between the two calls: either way, later.
    return { kind: 'busy' };
  }

  async succeed(jobId: string, result: JobResult, run: JobRun, now: number): Promise<boolean> {
    const attributes = await this.update(jobId, now, {
      UpdateExpression:
        'SET #status = :succeeded, #result = :result, #runs = list_append(if_not_exists(#runs, :none), :run), #updatedAt = :now REMOVE leaseUntil, #error',
      ConditionExpression: `${LIVE} AND #status = :running`,
      ExpressionAttributeNames: { '#result': 'result', '#runs': 'runs', '#error': 'error' },
      ExpressionAttributeValues: {
        ':succeeded': 'succeeded',
        ':running': 'running',
        ':result': plain(result),
        ':run': [plain(run)],
        ':none': [],
      },
      ReturnValues: 'ALL_NEW',
    });
    if (attributes) await this.release(attributes);
    return attributes !== undefined;
  }

  /**
   * Ends a run that did not succeed. A job that is no longer running (another worker finished it
   * after this one's lease ran out) is left as it is: its outcome stands.
   */
  async fail(
    jobId: string,
    run: JobRun,
    now: number,
    terminal: { code: string; message: string } | undefined,
  ): Promise<void> {
    const runs = '#runs = list_append(if_not_exists(#runs, :none), :run), #updatedAt = :now';
    const attributes = await this.update(jobId, now, {
      UpdateExpression: terminal
        ? `SET #status = :failed, #error = :error, ${runs} REMOVE leaseUntil`
        : // The lease goes, so that the redelivered message can claim the job at once.
          `SET #status = :retrying, ${runs} REMOVE leaseUntil`,
      ConditionExpression: `${LIVE} AND #status = :running`,
      ExpressionAttributeNames: { '#runs': 'runs', ...(terminal ? { '#error': 'error' } : {}) },
      ExpressionAttributeValues: {
        ':running': 'running',
        ':run': [plain(run)],
        ':none': [],
        ...(terminal ? { ':failed': 'failed', ':error': plain(terminal) } : { ':retrying': 'retrying' }),
      },
      ...(terminal ? { ReturnValues: 'ALL_NEW' as const } : {}),
    });
    if (terminal && attributes) await this.release(attributes);
  }

  /** A finished job no longer counts against its owner's quota. */
  private async release(item: Record<string, unknown>): Promise<void> {
    if (typeof item.owner !== 'string' || typeof item.jobId !== 'string') return;
    await releaseQuotaSlot({ client: this.client, tableName: this.tableName }, item.owner, item.jobId);
  }

  async markDelivered(jobId: string, now: number): Promise<boolean> {
    const attributes = await this.update(jobId, now, {
      UpdateExpression: 'SET #deliver.deliveredAt = :now, #updatedAt = :now',
      // A job without a delivery target has nothing to record.
      ConditionExpression: `${LIVE} AND attribute_exists(#deliver) AND attribute_not_exists(#deliver.deliveredAt)`,
      ExpressionAttributeNames: { '#deliver': 'deliver' },
      ReturnValues: 'UPDATED_NEW',
    });
    return attributes !== undefined;
  }

  private async read(jobId: string, now: number): Promise<JobRecord | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: key(jobId), ConsistentRead: true }),
    );
    return !Item || isExpired(Item, now) ? undefined : toRecord(Item);
  }

  /**
   * One conditional UpdateItem with the shared names and `:now`/`:nowSec` filled in. The new
   * attributes (or `{}`) when it was written; undefined when its condition failed.
   */
  private async update(
    jobId: string,
    now: number,
    input: {
      UpdateExpression: string;
      ConditionExpression: string;
      ExpressionAttributeNames?: Record<string, string>;
      ExpressionAttributeValues?: Record<string, unknown>;
      ReturnValues?: 'ALL_NEW' | 'ALL_OLD' | 'UPDATED_NEW';
    },
  ): Promise<Record<string, unknown> | undefined> {
    try {
      const result = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key(jobId),
          ...input,
          ExpressionAttributeNames: { ...usedNames(input), ...input.ExpressionAttributeNames },
          ExpressionAttributeValues: {
            ':now': now,
            ':nowSec': epochSeconds(now),
            ...input.ExpressionAttributeValues,
          },
        }),
      );
      return result.Attributes ?? {};
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }
}

/** DynamoDB rejects a name the expressions do not use, so only the shared names that appear go in. */
function usedNames(input: { UpdateExpression: string; ConditionExpression: string }): Record<string, string> {
  const text = `${input.UpdateExpression} ${input.ConditionExpression}`;
  return Object.fromEntries(Object.entries(NAMES).filter(([name]) => new RegExp(`${name}\\b`).test(text)));
}

/** `new DynamoDbJobStore(options)`, as the other stores are built. */
export function createDynamoDbJobStore(options: DynamoDbJobStoreOptions): JobStore {
  return new DynamoDbJobStore(options);
}
