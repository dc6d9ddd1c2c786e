import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import * as z from 'zod';
import type { JobMessage } from '../../core/jobs/job.js';
import type { JobQueue } from '../../core/jobs/job-ports.js';

/** SQS's limit on `DelaySeconds`, per message and per queue: 15 minutes. */
export const MAX_DELAY_SECONDS = 900;

/** The body of a job message: only the id (the record holds the request). Extra fields are ignored. */
export const jobMessageSchema = z.object({ jobId: z.string().min(1) });

/** A message body read at the edge: the message, or why it is not one. */
export type ParsedJobMessage = { ok: true; message: JobMessage } | { ok: false; reason: string };

/**
 * Reads a queue message body. Never throws: a malformed message (hand-sent, another version,
 * truncated) is reported by the caller, not turned into a crash loop.
 */
export function parseJobMessage(body: string | undefined): ParsedJobMessage {
  let json: unknown;
  try {
    json = JSON.parse(body ?? '');
  } catch {
    return { ok: false, reason: 'body is not JSON' };
  }
  const parsed = jobMessageSchema.safeParse(json);
  if (parsed.success) return { ok: true, message: { jobId: parsed.data.jobId } };
  const issue = parsed.error.issues[0];
  return { ok: false, reason: `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}` };
}

/** Where the queue is. The client is the caller's; nothing here closes it. */
export interface SqsQueueRef {
  client: SQSClient;
  queueUrl: string;
}

/** Whole seconds in [0, 900]: what `DelaySeconds` accepts. */
const delayOf = (seconds: number) => Math.max(0, Math.min(MAX_DELAY_SECONDS, Math.floor(seconds)));

/**
 * The job queue on SQS: `send` is one SendMessage whose body is the JSON `JobMessage` and whose
 * `DelaySeconds` is `options.delaySeconds`, floored and clamped to [0, 900] (SQS rejects more).
 */
export function createSqsJobQueue(options: SqsQueueRef): JobQueue {
  const { client, queueUrl } = options;
  return {
    async send(message, { delaySeconds }) {
      const body: JobMessage = { jobId: message.jobId };
      await client.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: JSON.stringify(body),
          DelaySeconds: delayOf(delaySeconds),
        }),
      );
    },
  };
}

interface ReceivedMessage {
  messageId: string;
  /** Needed to delete or release the message; valid until its visibility timeout ends. */
  receiptHandle: string;
  /** SQS's `ApproximateReceiveCount`: 1 on the first receive. */
  receiveCount: number;
}

/** One received message: a job id, or a body that is not a job message (with the reason). */
export type ReceivedJob =
  | (ReceivedMessage & { kind: 'job'; jobId: string })
  | (ReceivedMessage & { kind: 'malformed'; reason: string; body: string });

/** One receive from the job queue: how many, how long to wait, how long to hide them. */
export interface ReceiveJobsOptions extends SqsQueueRef {
  /** Messages at most, 1–10. Default 10. */
  max?: number | undefined;
  /** Long-poll wait in seconds, 0–20. Default 0 (answer at once). */
  waitSeconds?: number | undefined;
  /** Seconds the received messages stay hidden from other receivers. Default: the queue's own. */
  visibilityTimeout?: number | undefined;
  /** Aborts a long poll (the runner is stopping). */
  signal?: AbortSignal | undefined;
}

/**
 * One ReceiveMessage. Every message comes back, parsed: `kind: 'malformed'` ones are the caller's
 * to report; left undeleted, SQS moves them to the dead-letter queue after `maxReceiveCount`.
 */
export async function receiveJobs(options: ReceiveJobsOptions): Promise<ReceivedJob[]> {
  const { Messages } = await options.client.send(
    new ReceiveMessageCommand({
      QueueUrl: options.queueUrl,
      MaxNumberOfMessages: Math.max(1, Math.min(10, Math.floor(options.max ?? 10))),
      WaitTimeSeconds: Math.max(0, Math.min(20, Math.floor(options.waitSeconds ?? 0))),
      VisibilityTimeout: options.visibilityTimeout,
      MessageSystemAttributeNames: ['ApproximateReceiveCount'],
    }),
    { abortSignal: options.signal },
  );
  const received: ReceivedJob[] = [];
  for (const m of Messages ?? []) {
    // Without a receipt handle a message can be neither deleted nor released; SQS always sends one.
    if (!m.ReceiptHandle) continue;
    const base: ReceivedMessage = {
      messageId: m.MessageId ?? '',
      receiptHandle: m.ReceiptHandle,
      receiveCount: Number(m.Attributes?.ApproximateReceiveCount ?? 1) || 1,
    };
    const parsed = parseJobMessage(m.Body);
    received.push(
      parsed.ok
        ? { ...base, kind: 'job', jobId: parsed.message.jobId }
        : { ...base, kind: 'malformed', reason: parsed.reason, body: m.Body ?? '' },
    );
  }
  return received;
}

/** Deletes a handled message (the job is done, or must never run). */
export async function deleteJob(options: SqsQueueRef & { receiptHandle: string }): Promise<void> {
  await options.client.send(
    new DeleteMessageCommand({ QueueUrl: options.queueUrl, ReceiptHandle: options.receiptHandle }),
  );
}

/**
 * Makes a received message visible again after `afterSeconds` (ChangeMessageVisibility; default
 * 0: at once), for a retry without waiting out the visibility timeout. The receive count stays,
 * so a message released again and again still reaches the dead-letter queue.
 */
export async function releaseJob(
  options: SqsQueueRef & { receiptHandle: string; afterSeconds?: number | undefined },
): Promise<void> {
  await options.client.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: options.queueUrl,
      ReceiptHandle: options.receiptHandle,
      VisibilityTimeout: Math.max(0, Math.min(43_200, Math.floor(options.afterSeconds ?? 0))),
    }),
  );
}
