import type { JobMessage } from '../../core/jobs/job.js';
import type { RunJobOutcome } from '../../core/jobs/run-job.js';
import type { Logger } from '../../core/logger.js';
import type { Sleep } from '../../core/time.js';
import { systemSleep } from '../../wiring/system-time.js';

/** One received message and what it takes to delete or release it. */
export interface ReceivedJob {
  message: JobMessage;
  receiptHandle: string;
  /** 1 for the first receive (SQS `ApproximateReceiveCount`). */
  receiveCount: number;
}

/** The consuming side of a job queue: the memory queue, or SQS through the AWS adapter. */
export interface JobQueueConsumer {
  /** Up to `max` messages; may wait a little (an SQS long poll, ended by `signal`) and may return none. */
  receive(max: number, signal?: AbortSignal): Promise<ReceivedJob[]>;
  /** The job is done: the message goes away. */
  delete(receiptHandle: string): Promise<void>;
  /** The job must run again: the message becomes visible after `delaySeconds` (its receive counted). */
  release(receiptHandle: string, delaySeconds: number): Promise<void>;
}

export interface LocalJobRunnerOptions {
  consumer: JobQueueConsumer;
  /** Runs one job (`runJob` with its deps); `signal` aborts when the runner gives up waiting on stop. */
  run(jobId: string, signal: AbortSignal): Promise<RunJobOutcome>;
  log: Logger;
  /** Jobs run at the same time. Default 4. */
  concurrency?: number | undefined;
  /** Pause after a receive that found nothing, in ms. Default 250. */
  pollIntervalMs?: number | undefined;
  /** When a job that must run again becomes visible, in seconds. Default 5. */
  retryDelaySeconds?: number | undefined;
  sleep?: Sleep | undefined;
}

export interface LocalJobRunner {
  /** Starts polling. Calling it again does nothing. */
  start(): void;
  /**
   * Stops receiving and waits for the jobs in flight. After `graceMs` (default 30000) their runs
   * are aborted: they record a `cancelled` run and go back to the queue, never lost.
   */
  stop(graceMs?: number): Promise<void>;
  /** Jobs running now. */
  active(): number;
}

/**
 * The worker of `switchyard serve`, in-process: polls the queue, runs up to `concurrency` jobs at
 * once, deletes a message whose job is done and releases one that must run again, so receive
 * counts and the dead-letter queue work as they do behind the worker Lambda. A run that throws
 * (a store that failed) is released too: the job is never dropped.
 */
export function createLocalJobRunner(options: LocalJobRunnerOptions): LocalJobRunner {
  const { consumer, log } = options;
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const pollMs = options.pollIntervalMs ?? 250;
  const retryDelay = options.retryDelaySeconds ?? 5;
  const sleep = options.sleep ?? systemSleep;
  const inFlight = new Set<Promise<void>>();
  const abortRuns = new AbortController();
  const stopPolling = new AbortController();
  let loop: Promise<void> | undefined;

  const pause = (ms: number) => sleep(ms, stopPolling.signal).catch(() => {});
  const stopped = new Promise<void>((resolve) =>
    stopPolling.signal.addEventListener('abort', () => resolve(), { once: true }),
  );

  async function handle(job: ReceivedJob): Promise<void> {
    const { jobId } = job.message;
    let outcome: RunJobOutcome;
    try {
      outcome = await options.run(jobId, abortRuns.signal);
    } catch (error) {
      log.warn('job run threw; the message returns', { jobId, error: errorName(error) });
      outcome = 'retry';
    }
    try {
      if (outcome === 'done') await consumer.delete(job.receiptHandle);
      else await consumer.release(job.receiptHandle, retryDelay);
    } catch (error) {
      // The visibility timeout brings the message back anyway; the job's claim keeps it single.
      log.warn('job queue bookkeeping failed', { jobId, outcome, error: errorName(error) });
    }
  }

  async function poll(): Promise<void> {
    while (!stopPolling.signal.aborted) {
      const free = concurrency - inFlight.size;
      if (free <= 0) {
        await Promise.race([...inFlight, stopped]);
        continue;
      }
      let received: ReceivedJob[];
      try {
        received = await consumer.receive(free, stopPolling.signal);
      } catch (error) {
        if (stopPolling.signal.aborted) break;
        log.warn('job queue receive failed', { error: errorName(error) });
        await pause(Math.max(pollMs, 1_000));
        continue;
      }
      if (received.length === 0) {
        await pause(pollMs);
        continue;
      }
      for (const job of received) {
        const running: Promise<void> = handle(job).finally(() => inFlight.delete(running));
        inFlight.add(running);
      }
    }
  }

  return {
    start() {
      loop ??= poll();
    },
    async stop(graceMs = 30_000) {
      stopPolling.abort();
      await loop;
      if (inFlight.size === 0) return;
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          abortRuns.abort();
          resolve();
        }, graceMs);
      });
      await Promise.race([Promise.all(inFlight), grace]);
      await Promise.all(inFlight);
      clearTimeout(timer);
    },
    active: () => inFlight.size,
  };
}

function errorName(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message.slice(0, 200)}` : String(error);
}
