import { randomUUID } from 'node:crypto';
import type { JobMessage } from '../../core/jobs/job.js';
import type { JobQueue } from '../../core/jobs/job-ports.js';
import type { Clock } from '../../core/time.js';
import type { JobQueueConsumer, ReceivedJob } from '../runner/queue-poller.js';

/** How the memory queue imitates SQS. */
export interface MemoryJobQueueOptions {
  clock: Clock;
  /** Receives before a message moves to the dead-letter queue. Config `jobs.maxReceiveCount`, default 3. */
  maxReceiveCount: number;
  /** How long a received message stays invisible unless deleted or released, in seconds. Default 30. */
  visibilityTimeoutSeconds?: number | undefined;
}

/** Message counts, as SQS's `ApproximateNumberOfMessages*` attributes report them. */
export interface MemoryQueueDepth {
  /** Ready to receive now. */
  visible: number;
  /** Sent with a delay that has not passed yet. */
  delayed: number;
  /** Received and neither deleted nor visible again. */
  inFlight: number;
  /** In the dead-letter queue. */
  dead: number;
}

/** The memory queue: a job queue, its consumer side, and the dead-letter queue with its redrive. */
export interface MemoryJobQueue extends JobQueue, JobQueueConsumer {
  /** Every message ever sent, with its delay (what the spread test reads). */
  readonly sent: ReadonlyArray<{ message: JobMessage; delaySeconds: number }>;
  depth(): MemoryQueueDepth;
  /** Messages in the dead-letter queue, oldest first. */
  deadLetters(): JobMessage[];
  /** Moves up to `max` (default all) dead letters back, as `StartMessageMoveTask` does. Returns how many. */
  redrive(max?: number): number;
}

interface Entry {
  message: JobMessage;
  /** ms since epoch: not receivable before. */
  visibleAt: number;
  receiveCount: number;
  /** The handle of the latest receive; older handles no longer delete or release. */
  handle: string | undefined;
}

/**
 * SQS in memory, close enough that the local runner behaves as the worker Lambda does: delays,
 * visibility timeouts, receive counts, and a dead-letter queue that takes a message when it would
 * be received more than `maxReceiveCount` times. Time comes from the injected clock.
 */
export function createMemoryJobQueue(options: MemoryJobQueueOptions): MemoryJobQueue {
  const { clock, maxReceiveCount } = options;
  const visibilityMs = (options.visibilityTimeoutSeconds ?? 30) * 1000;
  let entries: Entry[] = [];
  const dead: JobMessage[] = [];
  const sent: { message: JobMessage; delaySeconds: number }[] = [];
  const byHandle = (handle: string) => entries.find((e) => e.handle === handle);

  return {
    sent,

    async send(message, { delaySeconds }) {
      const delay = Math.max(0, Math.min(900, Math.floor(delaySeconds)));
      sent.push({ message: { ...message }, delaySeconds: delay });
      entries.push({
        message: { ...message },
        visibleAt: clock.now() + delay * 1000,
        receiveCount: 0,
        handle: undefined,
      });
    },

    async receive(max) {
      const now = clock.now();
      const out: ReceivedJob[] = [];
      for (const entry of [...entries]) {
        if (out.length >= max) break;
        if (entry.visibleAt > now) continue;
        if (entry.receiveCount >= maxReceiveCount) {
          // SQS's redrive policy: the receive that would exceed the count moves it instead.
          entries = entries.filter((e) => e !== entry);
          dead.push(entry.message);
          continue;
        }
        entry.receiveCount += 1;
        entry.handle = randomUUID();
        entry.visibleAt = now + visibilityMs;
        out.push({
          message: { ...entry.message },
          receiptHandle: entry.handle,
          receiveCount: entry.receiveCount,
        });
      }
      return out;
    },

    async delete(receiptHandle) {
      const entry = byHandle(receiptHandle);
      if (entry) entries = entries.filter((e) => e !== entry);
    },

    async release(receiptHandle, delaySeconds) {
      const entry = byHandle(receiptHandle);
      if (entry) entry.visibleAt = clock.now() + Math.max(0, delaySeconds) * 1000;
    },

    depth() {
      const now = clock.now();
      const count = (p: (e: Entry) => boolean) => entries.filter(p).length;
      return {
        visible: count((e) => e.visibleAt <= now),
        delayed: count((e) => e.visibleAt > now && e.handle === undefined),
        inFlight: count((e) => e.visibleAt > now && e.handle !== undefined),
        dead: dead.length,
      };
    },

    deadLetters: () => dead.map((m) => ({ ...m })),

    redrive(max = Number.POSITIVE_INFINITY) {
      const moved = dead.splice(0, Math.min(max, dead.length));
      const now = clock.now();
      for (const message of moved)
        entries.push({ message, visibleAt: now, receiveCount: 0, handle: undefined });
      return moved.length;
    },
  };
}
