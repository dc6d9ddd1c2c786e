/**
 * `npx tsx bench/jobs-db/run.ts`: what durability costs the SQLite job file. Runs the store and
 * queue calls of one job (create, send, receive, claim, succeed, delete) for 300 jobs on a fresh
 * file in the temp folder, with `synchronous=NORMAL` (what `serve` uses) and `FULL`, and prints
 * the time per job and per committed write. Every call blocks the event loop for that long.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openJobsDb } from '../../lambda/jobs/sqlite/open-jobs-db.js';
import { createSqliteJobQueue } from '../../lambda/jobs/sqlite/sqlite-job-queue.js';
import { createSqliteJobStore } from '../../lambda/jobs/sqlite/sqlite-job-store.js';

const JOBS = 300;
/** Committed writes per job: create, send, receive, claim, succeed, delete. */
const WRITES_PER_JOB = 6;
const clock = { now: () => Date.now() };

async function measure(synchronous: 'FULL' | 'NORMAL'): Promise<number> {
  const folder = mkdtempSync(join(tmpdir(), 'switchyard-bench-jobs-'));
  const db = openJobsDb(join(folder, 'jobs.db'));
  db.exec(`PRAGMA synchronous = ${synchronous}`);
  const store = createSqliteJobStore({ db, clock });
  const queue = createSqliteJobQueue({ db, clock, maxReceiveCount: 3 });
  const started = process.hrtime.bigint();
  for (let i = 0; i < JOBS; i++) {
    const now = clock.now();
    const jobId = `bench-${i}`;
    await store.create({
      jobId,
      pipeline: 'p',
      request: { messages: [{ role: 'user', content: 'x'.repeat(500) }] },
      status: 'queued',
      createdAt: now,
      updatedAt: now,
      runs: [],
      expiresAt: Math.floor(now / 1000) + 86_400,
    });
    await queue.send({ jobId }, { delaySeconds: 0 });
    const [message] = await queue.receive(1);
    await store.claim(jobId, now, 30_000);
    await store.succeed(
      jobId,
      { model: 'a', content: 'ok', finishReason: 'stop' },
      { at: now, reason: 'success', attempts: 1, route: 'a:200' },
      now,
    );
    await queue.delete(message?.receiptHandle ?? '');
  }
  const ms = Number(process.hrtime.bigint() - started) / 1e6 / JOBS;
  db.close();
  rmSync(folder, { recursive: true, force: true });
  return ms;
}

console.log('synchronous  ms per job  ms per write');
for (const mode of ['FULL', 'NORMAL'] as const) {
  const ms = await measure(mode);
  console.log(
    `${mode.padEnd(11)}  ${ms.toFixed(3).padStart(10)}  ${(ms / WRITES_PER_JOB).toFixed(3).padStart(12)}`,
  );
}
