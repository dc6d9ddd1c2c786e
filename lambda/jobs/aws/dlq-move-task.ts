import {
  ListMessageMoveTasksCommand,
  type ListMessageMoveTasksResultEntry,
  type SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { isUnsupportedOperation } from './sqs-errors.js';

/** How a move task ended, as far as this process waited for it. */
export interface MoveTaskOutcome {
  /** `COMPLETED`, `FAILED`, `CANCELLED`, or `RUNNING` when the wait ran out first. */
  status: string;
  moved: number;
  /** Messages the task did not move (FAILED or CANCELLED before the end); 0 otherwise. */
  failed: number;
  failureReason?: string | undefined;
}

/** The redrive to start (DLQ → source) and how to follow it. */
export interface MoveTaskOptions {
  client: SQSClient;
  dlqArn: string;
  sourceArn: string;
  /** Pause between `ListMessageMoveTasks` polls, in ms. Default 2000. */
  pollMs?: number | undefined;
  /** How long to follow the task, in ms. Default 600000 (10 min); the task goes on in SQS after it. */
  timeoutMs?: number | undefined;
  onProgress?:
    | ((progress: { moved: number; toMove: number | undefined; status: string }) => void)
    | undefined;
  sleep?: ((ms: number) => Promise<void>) | undefined;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The task this process started: by its handle while it runs (SQS names the handle only then),
 * else the newest task of the DLQ, which `ListMessageMoveTasks` lists first.
 */
function ours(results: ListMessageMoveTasksResultEntry[], handle: string | undefined) {
  return results.find((r) => handle !== undefined && r.TaskHandle === handle) ?? results[0];
}

/**
 * Starts an SQS redrive (`StartMessageMoveTask`, DLQ → source, at the system's own rate) and
 * follows it with `ListMessageMoveTasks` until it ends or `timeoutMs` runs out. Undefined when the
 * endpoint lacks the operation (fauxqs 1.9.2 answers `InvalidAction`), so the caller can fall
 * back; any other error is thrown.
 */
export async function runMoveTask(options: MoveTaskOptions): Promise<MoveTaskOutcome | undefined> {
  const { client, dlqArn } = options;
  let handle: string | undefined;
  try {
    handle = (
      await client.send(
        new StartMessageMoveTaskCommand({ SourceArn: dlqArn, DestinationArn: options.sourceArn }),
      )
    ).TaskHandle;
  } catch (error) {
    if (isUnsupportedOperation(error)) return undefined;
    throw error;
  }
  const pollMs = options.pollMs ?? 2_000;
  const deadline = Date.now() + (options.timeoutMs ?? 600_000);
  const sleep = options.sleep ?? defaultSleep;
  let last: MoveTaskOutcome = { status: 'RUNNING', moved: 0, failed: 0 };
  for (;;) {
    const { Results } = await client.send(
      new ListMessageMoveTasksCommand({ SourceArn: dlqArn, MaxResults: 10 }),
    );
    const task = ours(Results ?? [], handle);
    const status = task?.Status ?? 'RUNNING';
    const moved = task?.ApproximateNumberOfMessagesMoved ?? 0;
    const toMove = task?.ApproximateNumberOfMessagesToMove;
    options.onProgress?.({ moved, toMove, status });
    const ended = status === 'FAILED' || status === 'CANCELLED';
    last = {
      status,
      moved,
      failed: ended && toMove !== undefined ? Math.max(0, toMove - moved) : 0,
      failureReason: task?.FailureReason,
    };
    if (status !== 'RUNNING' && status !== 'CANCELLING') return last;
    if (Date.now() + pollMs > deadline) return last;
    await sleep(pollMs);
  }
}

/** True when the endpoint answers `ListMessageMoveTasks` at all: what a dry run reports as the method. */
export async function hasMoveTasks(client: SQSClient, dlqArn: string): Promise<boolean> {
  try {
    await client.send(new ListMessageMoveTasksCommand({ SourceArn: dlqArn, MaxResults: 1 }));
    return true;
  } catch (error) {
    if (isUnsupportedOperation(error)) return false;
    throw error;
  }
}
