import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { AccountProbe, GateClaim, GateOutcome } from '../core/breaker/account-probe.js';
import { type BreakerPolicy, bucketStart } from '../core/breaker/breaker-policy.js';
import {
  type AttemptSample,
  applySample,
  type BreakerSnapshot,
  EMPTY_SNAPSHOT,
  isRecorded,
} from '../core/breaker/breaker-state.js';
import type { BreakerStore, OpenRequest, ProbeClaim, RampStart } from '../core/breaker/breaker-store.js';
import type { RateLimitSample, RouteCooling, RouteCoolingPolicy } from '../core/breaker/route-cooling.js';
import { SwitchyardError } from '../core/errors.js';
import {
  BREAKER_ATTRIBUTES,
  type BreakerItem,
  isExpired,
  itemRev,
  itemToSnapshot,
  snapshotToItem,
  unchangedSince,
} from './dynamodb-breaker-item.js';
import { BREAKER_TABLE_KEYS } from './dynamodb-breaker-keys.js';
import { openUpdate, recordUpdate, type UpdateParts } from './dynamodb-breaker-update.js';
import { isConditionFailure } from './dynamodb-condition.js';
import { claimProbeUpdate, startRampUpdate } from './dynamodb-recovery-update.js';
import { coolRouteItem, readRouteItems } from './dynamodb-route-cooling.js';
import { claimRouteProbeItem, settleRouteProbeItem } from './dynamodb-route-probe.js';

/** Where the DynamoDB breaker store keeps its items. */
export interface DynamoDbBreakerStoreOptions {
  /** A document client (`DynamoDBDocumentClient.from(...)`); the store never closes it. */
  client: DynamoDBDocumentClient;
  tableName: string;
  /**
   * Strongly consistent Query in `readPipeline`. Default true: a breaker that one container has
   * just opened must exclude the route from every other container's very next selection, and an
   * eventually consistent read may miss a write for about a second. It costs 1 RCU per 4 KB
   * instead of 0.5 (a pipeline of four models is one or two KB).
   */
  consistentRead?: boolean;
}

/**
 * Rounds of (one-write path, then read-modify-write) before `record` gives up. Each lost round
 * means another writer's reset won the race, after which the one-write path succeeds: two rounds
 * suffice in practice.
 */
const MAX_RECORD_ROUNDS = 4;

/** Items whose `lastBucket` a store remembers before it starts over. */
const MAX_KNOWN_ITEMS = 10_000;

/** Another writer kept changing the item for every round of `record`; the caller treats it as a store error. */
export class BreakerStoreContentionError extends SwitchyardError {
  constructor(
    readonly pipeline: string,
    readonly model: string,
  ) {
    super(`breaker item ${pipeline}/${model} kept changing under ${MAX_RECORD_ROUNDS} write rounds`);
    this.name = 'BreakerStoreContentionError';
  }
}

const itemId = (pipeline: string, model: string) => `${pipeline}\u0000${model}`;

const keyOf = (pipeline: string, model: string) => ({
  [BREAKER_TABLE_KEYS.partitionKey]: pipeline,
  [BREAKER_TABLE_KEYS.sortKey]: model,
});

/**
 * Breaker state in DynamoDB, shared by every Lambda container and every local gateway pointed at
 * the table: one item per (pipeline, model) under partition key = pipeline (see the README,
 * "Shared breakers in DynamoDB"). A pipeline is one `Query`; a sample is one `UpdateItem`; an
 * opening is one conditional `UpdateItem` that exactly one writer wins. The rare exceptions (the
 * first sample after an item expired or stayed quiet for a window, or a cooling end earlier than
 * the stored one) read the item and write it back under an optimistic lock.
 *
 * Errors (throttling, network, a missing table) are thrown: `createBreakers` reports them and
 * routes on what its process knows. The store reads no clock: every time comes from the caller.
 */
export class DynamoDbBreakerStore implements BreakerStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly consistentRead: boolean;
  // The newest `lastBucket` this container has seen per item: it lets a write clean up only the
  // buckets that left the window since then (see `QUIET_BUCKETS`). One number per breaker.
  private readonly lastBuckets = new Map<string, number>();

  constructor(options: DynamoDbBreakerStoreOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
    this.consistentRead = options.consistentRead ?? true;
  }

  async readPipeline(pipeline: string, now: number): Promise<Map<string, BreakerSnapshot>> {
    const snapshots = new Map<string, BreakerSnapshot>();
    let startKey: Record<string, unknown> | undefined;
    // A pipeline's items are a few KB, far below a page (1 MB): one Query, the loop is for safety.
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': BREAKER_TABLE_KEYS.partitionKey },
          ExpressionAttributeValues: { ':pk': pipeline },
          ConsistentRead: this.consistentRead,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) {
        const model = item[BREAKER_TABLE_KEYS.sortKey];
        // Sort keys starting with `#` are reserved for pipeline-level items (design notes).
        if (typeof model !== 'string' || model.startsWith('#') || isExpired(item, now)) continue;
        snapshots.set(model, itemToSnapshot(item));
        this.noteLastBucket(pipeline, model, item);
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return snapshots;
  }

  async record(
    pipeline: string,
    model: string,
    sample: AttemptSample,
    policy: BreakerPolicy,
  ): Promise<BreakerSnapshot> {
    if (!isRecorded(sample)) return this.readOne(pipeline, model, sample.at);
    const windowFloor = sample.at - policy.windowMs;
    for (let round = 0; round < MAX_RECORD_ROUNDS; round++) {
      const updated = await this.updateInPlace(pipeline, model, sample, policy);
      if (updated) {
        this.noteLastBucket(pipeline, model, updated);
        return itemToSnapshot(updated, windowFloor);
      }
      const rewritten = await this.rewrite(pipeline, model, sample, policy);
      if (rewritten) return rewritten;
    }
    throw new BreakerStoreContentionError(pipeline, model);
  }

  tryOpen(pipeline: string, model: string, request: OpenRequest): Promise<boolean> {
    return this.conditional(pipeline, model, openUpdate(request.now, request.reason, request.policy));
  }

  claimProbe(pipeline: string, model: string, claim: ProbeClaim): Promise<boolean> {
    return this.conditional(pipeline, model, claimProbeUpdate(claim));
  }

  startRamp(pipeline: string, model: string, request: RampStart): Promise<boolean> {
    return this.conditional(pipeline, model, startRampUpdate(request));
  }

  /** One conditional `UpdateItem`: `true` when this write won, `false` when its condition failed. */
  private async conditional(pipeline: string, model: string, parts: UpdateParts): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({ TableName: this.tableName, Key: keyOf(pipeline, model), ...parts }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  readRoutes(routes: readonly string[], now: number): Promise<Map<string, RouteCooling>> {
    return readRouteItems(this.client, this.tableName, routes, now, this.consistentRead);
  }

  coolRoute(route: string, sample: RateLimitSample, policy: RouteCoolingPolicy): Promise<RouteCooling> {
    return coolRouteItem(this.client, this.tableName, route, sample, policy);
  }

  claimRouteProbe(route: string, claim: GateClaim, keepMs: number): Promise<boolean> {
    return claimRouteProbeItem(this.client, this.tableName, route, claim, keepMs);
  }

  settleRouteProbe(route: string, outcome: GateOutcome, keepMs: number): Promise<AccountProbe | undefined> {
    return settleRouteProbeItem(this.client, this.tableName, route, outcome, keepMs);
  }

  /** The one-write path; undefined when its condition sends the sample to `rewrite`. */
  private async updateInPlace(
    pipeline: string,
    model: string,
    sample: AttemptSample,
    policy: BreakerPolicy,
  ): Promise<BreakerItem | undefined> {
    try {
      const result = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keyOf(pipeline, model),
          ...recordUpdate(sample, policy, this.lastBuckets.get(itemId(pipeline, model))),
          ReturnValues: 'ALL_NEW',
        }),
      );
      return result.Attributes ?? {};
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  /**
   * Read-modify-write with `applySample` itself, for what one update expression cannot say. The
   * put is conditional on the `rev` it read, so a concurrent writer is never overwritten: the
   * loser goes round again. Undefined when it lost.
   */
  private async rewrite(
    pipeline: string,
    model: string,
    sample: AttemptSample,
    policy: BreakerPolicy,
  ): Promise<BreakerSnapshot | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: keyOf(pipeline, model), ConsistentRead: true }),
    );
    // An expired item is treated as the deleted item it soon will be, 429 streak included.
    const before =
      !Item || isExpired(Item, sample.at)
        ? EMPTY_SNAPSHOT
        : itemToSnapshot(Item, sample.at - policy.windowMs);
    const after = applySample(before, sample, policy);
    const rev = Item ? itemRev(Item) : undefined;
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: snapshotToItem(after, {
            pipeline,
            model,
            lastBucket: bucketStart(sample.at, policy),
            rev: (rev ?? 0) + 1,
            policy,
            now: sample.at,
          }),
          ...unchangedSince(Item, rev),
        }),
      );
      this.lastBuckets.set(itemId(pipeline, model), bucketStart(sample.at, policy));
      return after;
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  private noteLastBucket(pipeline: string, model: string, item: BreakerItem): void {
    const seen = item[BREAKER_ATTRIBUTES.lastBucket];
    if (typeof seen !== 'number') return;
    // Ad-hoc chains are pipelines too; forgetting only costs a longer REMOVE list once.
    if (this.lastBuckets.size >= MAX_KNOWN_ITEMS) this.lastBuckets.clear();
    this.lastBuckets.set(itemId(pipeline, model), seen);
  }

  private async readOne(pipeline: string, model: string, now: number): Promise<BreakerSnapshot> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keyOf(pipeline, model),
        ConsistentRead: this.consistentRead,
      }),
    );
    return !Item || isExpired(Item, now) ? EMPTY_SNAPSHOT : itemToSnapshot(Item);
  }
}

/** A DynamoDB breaker store on `tableName` (which must exist: see `ensureBreakerTable`). */
export function createDynamoDbBreakerStore(options: DynamoDbBreakerStoreOptions): DynamoDbBreakerStore {
  return new DynamoDbBreakerStore(options);
}
