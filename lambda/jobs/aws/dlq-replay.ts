import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import * as z from 'zod';
import { SwitchyardError } from '../../core/errors.js';
import { hasMoveTasks, runMoveTask } from './dlq-move-task.js';
import type { JobQueueAddresses } from './ensure-job-queues.js';
import { parseJobMessage } from './sqs-job-queue.js';

/** How a replay moved (or, for a dry run, would move) the messages. */
export type ReplayMethod = 'move-task' | 'receive-send-delete';

/** Progress, reported after every poll of a move task or every batch of the fallback. */
export interface ReplayProgress {
  method: ReplayMethod;
  moved: number;
  failed: number;
  /** The move task's own estimate of its total; undefined for the fallback. */
  toMove?: number | undefined;
}

/** What a replay did (or, for a dry run, found). */
export interface ReplaySummary {
  method: ReplayMethod;
  /** Messages now back on the source queue (0 for a dry run). */
  moved: number;
  /** Messages that could not be moved; they stay in (or return to) the dead-letter queue. */
  failed: number;
  /**
   * Job ids of the messages moved by the fallback, or peeked by a dry run (at most 100). Empty
   * for a move task: SQS does not say which messages it moved.
   */
  jobIds: string[];
  /** Bodies among them that are not job messages (moved all the same; the worker reports them). */
  malformed: number;
  /** `ApproximateNumberOfMessages` of the dead-letter queue before the replay. */
  waiting: number;
  dryRun: boolean;
  /** Move task only: its last status (`COMPLETED`, or `RUNNING` when the wait ran out) and why it failed. */
  taskStatus?: string | undefined;
  failureReason?: string | undefined;
}

/** The two queues of a replay (ARNs for a move task, URLs for the fallback) and its limits. */
export interface ReplayOptions {
  client: SQSClient;
  dlqArn: string;
  dlqUrl: string;
  sourceArn: string;
  sourceUrl: string;
  /**
   * Move at most this many. A move task's `MaxNumberOfMessagesPerSecond` is a rate, not a count,
   * so a limit always uses receive → send → delete. Default: all.
   */
  maxMessages?: number | undefined;
  /** Count and peek job ids; move nothing. Default false. */
  dryRun?: boolean | undefined;
  onProgress?: ((progress: ReplayProgress) => void) | undefined;
  /** Move task polling, in ms. Defaults 2000 and 600000 (see `runMoveTask`). */
  pollMs?: number | undefined;
  timeoutMs?: number | undefined;
  /**
   * Seconds the fallback keeps the messages it holds hidden, so that one that fails to send is
   * not received again by the same replay (it returns to the DLQ after this). Default 60.
   */
  holdSeconds?: number | undefined;
  /** Long-poll wait of each fallback receive, in s. Default 1: an empty answer then means empty. */
  waitSeconds?: number | undefined;
}

/** A dry run peeks at most this many job ids. */
const PEEK_LIMIT = 100;

/** Replay state shared by the fallback and the dry run. */
interface Tally {
  moved: number;
  failed: number;
  malformed: number;
  jobIds: string[];
}

function note(tally: Tally, messages: Message[]) {
  for (const m of messages) {
    const parsed = parseJobMessage(m.Body);
    if (parsed.ok) tally.jobIds.push(parsed.message.jobId);
    else tally.malformed++;
  }
}

async function approximateCount(client: SQSClient, queueUrl: string): Promise<number> {
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages ?? 0) || 0;
}

async function receiveBatch(options: ReplayOptions, max: number, waitSeconds: number): Promise<Message[]> {
  const { Messages } = await options.client.send(
    new ReceiveMessageCommand({
      QueueUrl: options.dlqUrl,
      MaxNumberOfMessages: Math.max(1, Math.min(10, max)),
      VisibilityTimeout: options.holdSeconds ?? 60,
      WaitTimeSeconds: waitSeconds,
      MessageAttributeNames: ['All'],
    }),
  );
  return Messages ?? [];
}

/**
 * receive → send to the source → delete, ten at a time, until the DLQ answers empty or `limit`
 * messages are dealt with. A message is deleted only after its send succeeded; a crash between the
 * two leaves a duplicate, which is harmless because jobs are idempotent on their id.
 */
async function receiveSendDelete(options: ReplayOptions, limit: number, tally: Tally): Promise<void> {
  const { client } = options;
  while (tally.moved + tally.failed < limit) {
    const messages = await receiveBatch(
      options,
      limit - tally.moved - tally.failed,
      options.waitSeconds ?? 1,
    );
    if (messages.length === 0) return;
    const sent = await client.send(
      new SendMessageBatchCommand({
        QueueUrl: options.sourceUrl,
        Entries: messages.map((m, i) => ({
          Id: String(i),
          MessageBody: m.Body ?? '',
          MessageAttributes: m.MessageAttributes,
        })),
      }),
    );
    const ok = new Set((sent.Successful ?? []).map((s) => s.Id));
    const movedNow = messages.filter((_, i) => ok.has(String(i)));
    if (movedNow.length > 0) {
      await client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: options.dlqUrl,
          Entries: movedNow.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
        }),
      );
    }
    tally.moved += movedNow.length;
    tally.failed += messages.length - movedNow.length;
    note(tally, movedNow);
    options.onProgress?.({ method: 'receive-send-delete', moved: tally.moved, failed: tally.failed });
  }
}

/** Receives up to `limit` messages without moving them, then makes them all visible again. */
async function peek(options: ReplayOptions, limit: number, tally: Tally): Promise<void> {
  const held: Message[] = [];
  try {
    while (held.length < limit) {
      const messages = await receiveBatch(options, limit - held.length, 0);
      if (messages.length === 0) break;
      held.push(...messages);
    }
  } finally {
    for (let i = 0; i < held.length; i += 10) {
      await options.client.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: options.dlqUrl,
          Entries: held
            .slice(i, i + 10)
            .map((m, j) => ({ Id: String(j), ReceiptHandle: m.ReceiptHandle ?? '', VisibilityTimeout: 0 })),
        }),
      );
    }
  }
  note(tally, held);
}

/**
 * Moves the messages of a job queue's dead-letter queue back to the queue. Without `maxMessages`
 * it starts an SQS redrive (`StartMessageMoveTask`) and follows it; when the endpoint lacks that
 * operation (fauxqs), or with `maxMessages`, it falls back to receive → send → delete. A replayed
 * job that already finished is acknowledged without running again, so a replay never delivers
 * twice. `dryRun` counts the DLQ and peeks job ids, and names the method a real run would use.
 */
export async function replayDeadLetters(options: ReplayOptions): Promise<ReplaySummary> {
  const { client } = options;
  const limit = options.maxMessages ?? Number.POSITIVE_INFINITY;
  const tally: Tally = { moved: 0, failed: 0, malformed: 0, jobIds: [] };
  const waiting = await approximateCount(client, options.dlqUrl);
  const summary = (method: ReplayMethod, extra: Partial<ReplaySummary> = {}): ReplaySummary => ({
    method,
    ...tally,
    waiting,
    dryRun: options.dryRun ?? false,
    ...extra,
  });

  if (options.dryRun) {
    const method =
      options.maxMessages === undefined && (await hasMoveTasks(client, options.dlqArn))
        ? 'move-task'
        : 'receive-send-delete';
    await peek(options, Math.min(limit, PEEK_LIMIT), tally);
    return summary(method);
  }

  if (options.maxMessages === undefined) {
    const task = await runMoveTask({
      client,
      dlqArn: options.dlqArn,
      sourceArn: options.sourceArn,
      pollMs: options.pollMs,
      timeoutMs: options.timeoutMs,
      onProgress: (p) =>
        options.onProgress?.({ method: 'move-task', moved: p.moved, failed: 0, toMove: p.toMove }),
    });
    if (task) {
      return summary('move-task', {
        moved: task.moved,
        failed: task.failed,
        taskStatus: task.status,
        failureReason: task.failureReason,
      });
    }
  }
  await receiveSendDelete(options, limit, tally);
  return summary('receive-send-delete');
}

/** The ARN of the queue at `queueUrl` (GetQueueAttributes `QueueArn`). */
export async function queueArnOf(client: SQSClient, queueUrl: string): Promise<string> {
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
  );
  if (!Attributes?.QueueArn) throw new SwitchyardError(`queue ${queueUrl} has no QueueArn`);
  return Attributes.QueueArn;
}

// SQS returns the policy as a JSON string; its maxReceiveCount may be a number or a string.
const redrivePolicySchema = z.object({
  deadLetterTargetArn: z.string().regex(/^arn:[^:]+:sqs:[^:]*:[^:]*:[^:]+$/),
  maxReceiveCount: z.coerce.number().int().positive(),
});

/**
 * The dead-letter queue of the queue at `sourceUrl`, from its `RedrivePolicy`; undefined when it
 * has none. The DLQ's URL comes from GetQueueUrl with the name and account in its ARN.
 */
export async function dlqOf(
  client: SQSClient,
  sourceUrl: string,
): Promise<{ dlqArn: string; dlqUrl: string; maxReceiveCount: number } | undefined> {
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: sourceUrl, AttributeNames: ['RedrivePolicy'] }),
  );
  if (!Attributes?.RedrivePolicy) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(Attributes.RedrivePolicy);
  } catch (error) {
    throw new SwitchyardError(`queue ${sourceUrl} has a RedrivePolicy that is not JSON`, { cause: error });
  }
  const policy = redrivePolicySchema.safeParse(json);
  if (!policy.success) throw new SwitchyardError(`queue ${sourceUrl} has an unreadable RedrivePolicy`);
  const [, , , , account, name] = policy.data.deadLetterTargetArn.split(':');
  const { QueueUrl } = await client.send(
    new GetQueueUrlCommand({ QueueName: name, QueueOwnerAWSAccountId: account || undefined }),
  );
  if (!QueueUrl) throw new SwitchyardError(`no URL for dead-letter queue ${policy.data.deadLetterTargetArn}`);
  return {
    dlqArn: policy.data.deadLetterTargetArn,
    dlqUrl: QueueUrl,
    maxReceiveCount: policy.data.maxReceiveCount,
  };
}

/** Everything `replayDeadLetters` needs, found from the source queue alone (what the CLI knows). */
export async function replayAddressesOf(client: SQSClient, sourceUrl: string): Promise<JobQueueAddresses> {
  const dlq = await dlqOf(client, sourceUrl);
  if (!dlq) throw new SwitchyardError(`queue ${sourceUrl} has no dead-letter queue (no RedrivePolicy)`);
  return {
    queueUrl: sourceUrl,
    queueArn: await queueArnOf(client, sourceUrl),
    dlqUrl: dlq.dlqUrl,
    dlqArn: dlq.dlqArn,
  };
}
