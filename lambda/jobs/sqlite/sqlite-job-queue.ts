import { randomUUID } from 'node:crypto';
import type { JobQueue } from '../../core/jobs/job-ports.js';
import type { Clock } from '../../core/time.js';
import type { MemoryQueueDepth } from '../memory/memory-job-queue.js';
import type { JobQueueConsumer, ReceivedJob } from '../runner/queue-poller.js';
import { immediate, type SqliteDatabase } from './open-jobs-db.js';

/** How the file queue imitates SQS. */
export interface SqliteJobQueueOptions {
  /** An open jobs database ({@link openJobsDb}); the queue never closes it. */
  db: SqliteDatabase;
  clock: Clock;
  /** Receives before a message moves to the dead-letter queue. Config `jobs.maxReceiveCount`, default 3. */
  maxReceiveCount: number;
  /** How long a received message stays invisible unless deleted or released, in seconds. Default 30. */
  visibilityTimeoutSeconds?: number | undefined;
}

/** The file queue: a job queue, its consumer side, and what `serve` and tests read of it. */
export interface SqliteJobQueue extends JobQueue, JobQueueConsumer {
  depth(): MemoryQueueDepth;
  /** Job ids in the dead-letter queue, oldest first. */
  deadLetters(): string[];
}

interface MessageRow {
  id: number;
  job_id: string;
  receive_count: number;
}

/**
 * SQS in the jobs file, next to the records, with the memory queue's rules: delays, visibility
 * timeouts, receive counts and a dead-letter queue that takes a message on the receive that would
 * exceed `maxReceiveCount`. A receive is one transaction, so two processes never take one message.
 * A process that dies holding messages loses nothing: they become visible again when their
 * visibility timeout ends, as on SQS, and the job's own lease decides whether it may run.
 */
export function createSqliteJobQueue(options: SqliteJobQueueOptions): SqliteJobQueue {
  const { db, clock, maxReceiveCount } = options;
  const visibilityMs = (options.visibilityTimeoutSeconds ?? 30) * 1000;
  const insert = db.prepare('INSERT INTO job_messages (job_id, visible_at) VALUES (?, ?)');
  const ready = db.prepare(
    'SELECT id, job_id, receive_count FROM job_messages WHERE dead = 0 AND visible_at <= ? ORDER BY visible_at, id LIMIT ?',
  );
  const bury = db.prepare('UPDATE job_messages SET dead = 1, handle = NULL WHERE id = ?');
  const take = db.prepare(
    'UPDATE job_messages SET receive_count = receive_count + 1, handle = ?, visible_at = ? WHERE id = ?',
  );
  const remove = db.prepare('DELETE FROM job_messages WHERE handle = ?');
  const release = db.prepare('UPDATE job_messages SET visible_at = ? WHERE handle = ? AND dead = 0');
  const counts = db.prepare(
    `SELECT
       total(dead = 0 AND visible_at <= ?1) AS visible,
       total(dead = 0 AND visible_at > ?1 AND handle IS NULL) AS delayed,
       total(dead = 0 AND visible_at > ?1 AND handle IS NOT NULL) AS inFlight,
       total(dead = 1) AS dead
     FROM job_messages`,
  );
  const dead = db.prepare('SELECT job_id FROM job_messages WHERE dead = 1 ORDER BY id');

  return {
    async send(message, { delaySeconds }) {
      const delay = Math.max(0, Math.min(900, Math.floor(delaySeconds)));
      insert.run(message.jobId, clock.now() + delay * 1000);
    },

    async receive(max) {
      const now = clock.now();
      return immediate(db, () => {
        const out: ReceivedJob[] = [];
        while (out.length < max) {
          const rows = ready.all(now, max - out.length) as unknown as MessageRow[];
          if (rows.length === 0) break;
          for (const row of rows) {
            if (row.receive_count >= maxReceiveCount) {
              // SQS's redrive policy: the receive that would exceed the count moves it instead.
              bury.run(row.id);
              continue;
            }
            const handle = randomUUID();
            take.run(handle, now + visibilityMs, row.id);
            out.push({
              message: { jobId: row.job_id },
              receiptHandle: handle,
              receiveCount: row.receive_count + 1,
            });
          }
        }
        return out;
      });
    },

    async delete(receiptHandle) {
      remove.run(receiptHandle);
    },

    async release(receiptHandle, delaySeconds) {
      release.run(clock.now() + Math.max(0, delaySeconds) * 1000, receiptHandle);
    },

    depth() {
      const row = counts.get(clock.now()) ?? {};
      const n = (key: string) => Number(row[key] ?? 0);
      return { visible: n('visible'), delayed: n('delayed'), inFlight: n('inFlight'), dead: n('dead') };
    },

    deadLetters: () => dead.all().map((row) => String(row.job_id)),
  };
}
