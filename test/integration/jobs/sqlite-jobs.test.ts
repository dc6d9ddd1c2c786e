/**
 * What only the SQLite job file shows: it outlives its process, the queue keeps SQS's rules across
 * connections, and the store keeps the memory store's bounds. The lifecycle itself is the shared
 * contract (job-store-contract.test.ts).
 */
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MalformedJobError } from '../../../lambda/jobs/malformed-job-error.js';
import { JobStoreFullError } from '../../../lambda/jobs/memory/memory-job-store.js';
import { openJobsDb, type SqliteDatabase } from '../../../lambda/jobs/sqlite/open-jobs-db.js';
import { createSqliteJobQueue } from '../../../lambda/jobs/sqlite/sqlite-job-queue.js';
import { createSqliteJobStore } from '../../../lambda/jobs/sqlite/sqlite-job-store.js';
import { createFakeClock } from '../../helpers/fake-clock.js';
import { tempJobsDb } from '../../helpers/serve-process.js';
import { ANSWER, job, LEASE_MS, run, T0 } from './job-store-contract-harness.js';

const opened: SqliteDatabase[] = [];
const open = (path: string) => {
  const db = openJobsDb(path);
  opened.push(db);
  return db;
};
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

const queueOn = (db: SqliteDatabase, clock = createFakeClock(T0), maxReceiveCount = 3) =>
  createSqliteJobQueue({ db, clock, maxReceiveCount, visibilityTimeoutSeconds: 30 });

describe('SQLite job file', () => {
  it('keeps jobs and messages when the process that wrote them is gone', async () => {
    const path = tempJobsDb();
    const clock = createFakeClock(T0);
    const first = open(path);
    await createSqliteJobStore({ db: first, clock }).create(job('a'));
    await queueOn(first, clock).send({ jobId: 'a' }, { delaySeconds: 0 });
    // No close: a killed process never closes its database.
    const second = open(path);
    expect((await createSqliteJobStore({ db: second, clock }).get('a'))?.status).toBe('queued');
    expect((await queueOn(second, clock).receive(10)).map((m) => m.message.jobId)).toEqual(['a']);
  });

  it('creates a new file, its WAL and its folder readable by their owner only: they hold prompts', () => {
    const path = join(tempJobsDb().replace(/jobs\.db$/, ''), 'new-folder', 'jobs.db');
    open(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(`${path}-wal`).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(path)).mode & 0o777).toBe(0o700);
  });

  it('refuses a file written by a newer schema instead of guessing', () => {
    const path = tempJobsDb();
    open(path).exec('PRAGMA user_version = 99');
    expect(() => open(path)).toThrow(/newer Switchyard \(schema 99/);
  });

  it('reports a row without the fields the transitions need', async () => {
    const db = open(tempJobsDb());
    db.prepare('INSERT INTO jobs VALUES (?, ?, ?, ?, ?, ?)').run(
      'bad',
      'weird',
      T0,
      9e9,
      2,
      '{"jobId":"bad"}',
    );
    await expect(createSqliteJobStore({ db, clock: createFakeClock(T0) }).get('bad')).rejects.toBeInstanceOf(
      MalformedJobError,
    );
  });

  it('restores process.emitWarning after loading node:sqlite, so every other warning still shows', () => {
    const before = process.emitWarning;
    open(tempJobsDb());
    expect(process.emitWarning).toBe(before);
  });
});

describe('SQLite job store bounds', () => {
  it('drops the oldest finished job to make room at maxJobs', async () => {
    const clock = createFakeClock(T0);
    const store = createSqliteJobStore({ db: open(tempJobsDb()), clock, maxJobs: 3 });
    for (const [n, id] of ['old', 'mid', 'new'].entries()) {
      await store.create(job(id, { createdAt: T0 + n }));
      await store.claim(id, T0, LEASE_MS);
      await store.succeed(id, ANSWER, run('success', T0), T0);
    }
    expect(await store.create(job('next', { createdAt: T0 + 3 }))).toBe(true);
    expect(await store.get('old')).toBeUndefined();
    expect((await store.get('mid'))?.status).toBe('succeeded');
  });

  it('never drops a queued or running job: at the bound it refuses the new one', async () => {
    const store = createSqliteJobStore({ db: open(tempJobsDb()), clock: createFakeClock(T0), maxJobs: 2 });
    await store.create(job('queued'));
    await store.create(job('running'));
    await store.claim('running', T0, LEASE_MS);
    await expect(store.create(job('third'))).rejects.toBeInstanceOf(JobStoreFullError);
    expect((await store.get('queued'))?.status).toBe('queued');
    expect((await store.get('running'))?.status).toBe('running');
  });
});

describe('SQLite job queue', () => {
  it('hides a received message for the visibility timeout, then hands it out again with its count', async () => {
    const clock = createFakeClock(T0);
    const queue = queueOn(open(tempJobsDb()), clock);
    await queue.send({ jobId: 'a' }, { delaySeconds: 0 });
    expect((await queue.receive(10))[0]?.receiveCount).toBe(1);
    clock.advance(29_999);
    expect(await queue.receive(10)).toEqual([]);
    expect(queue.depth()).toEqual({ visible: 0, delayed: 0, inFlight: 1, dead: 0 });
    clock.advance(1);
    expect((await queue.receive(10))[0]?.receiveCount).toBe(2);
  });

  it('keeps a delayed message back until its delay has passed', async () => {
    const clock = createFakeClock(T0);
    const queue = queueOn(open(tempJobsDb()), clock);
    await queue.send({ jobId: 'a' }, { delaySeconds: 5 });
    expect(queue.depth()).toMatchObject({ delayed: 1 });
    clock.advance(4_999);
    expect(await queue.receive(10)).toEqual([]);
    clock.advance(1);
    expect(await queue.receive(10)).toHaveLength(1);
  });

  it('deletes and releases by the latest receipt handle only', async () => {
    const clock = createFakeClock(T0);
    const queue = queueOn(open(tempJobsDb()), clock);
    await queue.send({ jobId: 'a' }, { delaySeconds: 0 });
    const [first] = await queue.receive(1);
    await queue.release(first?.receiptHandle ?? '', 0);
    const [second] = await queue.receive(1);
    await queue.delete(first?.receiptHandle ?? '');
    expect(queue.depth().inFlight).toBe(1);
    await queue.delete(second?.receiptHandle ?? '');
    expect(queue.depth()).toEqual({ visible: 0, delayed: 0, inFlight: 0, dead: 0 });
  });

  it('moves a message to the dead-letter queue on the receive after maxReceiveCount, not before', async () => {
    const clock = createFakeClock(T0);
    const queue = queueOn(open(tempJobsDb()), clock, 3);
    await queue.send({ jobId: 'a' }, { delaySeconds: 0 });
    for (const count of [1, 2, 3]) {
      const [message] = await queue.receive(1);
      expect(message?.receiveCount).toBe(count);
      await queue.release(message?.receiptHandle ?? '', 0);
    }
    expect(await queue.receive(1)).toEqual([]);
    expect(queue.deadLetters()).toEqual(['a']);
    expect(queue.depth().dead).toBe(1);
  });

  it('hands each message to one receiver only, across two connections on one file', async () => {
    const path = tempJobsDb();
    const clock = createFakeClock(T0);
    const one = queueOn(open(path), clock);
    const other = queueOn(open(path), clock);
    for (let i = 0; i < 20; i++) await one.send({ jobId: `j${i}` }, { delaySeconds: 0 });
    const got = (await Promise.all([one.receive(15), other.receive(15), one.receive(15)])).flat();
    expect(got.map((m) => m.message.jobId).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `j${i}`).sort(),
    );
  });
});
