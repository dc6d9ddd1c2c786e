import { describe, expect, it } from 'vitest';
import {
  FanOutError,
  fanOutSchedule,
  normalizeScheduledTime,
} from '../../../lambda/core/jobs/fan-out-schedule.js';
import type { JobQueue } from '../../../lambda/core/jobs/job-ports.js';
import { createMemoryJobQueue } from '../../../lambda/jobs/memory/memory-job-queue.js';
import { createMemoryJobStore } from '../../../lambda/jobs/memory/memory-job-store.js';
import { seededRandom } from '../../../lambda/wiring/seeded-random.js';
import { createFakeClock } from '../../helpers/fake-clock.js';
import { scheduleOf } from '../../helpers/job-harness.js';

const TIME = '2026-11-29T03:00:00Z';

function setup(seed = 1) {
  const clock = createFakeClock();
  const store = createMemoryJobStore({ clock });
  const queue = createMemoryJobQueue({ clock, maxReceiveCount: 3 });
  return {
    clock,
    store,
    queue,
    deps: { store, queue, clock, random: seededRandom(seed), retentionDays: 14 },
  };
}

describe('fanOutSchedule', () => {
  it('gives every job the id <schedule>:<job id>:<scheduled time> and sends one message each', async () => {
    const { store, queue, deps } = setup();
    const result = await fanOutSchedule(scheduleOf(3), 'nightly', TIME, deps);
    expect(result.enqueued.map((e) => e.jobId).sort()).toEqual([
      'nightly:job-1:2026-11-29T03:00:00Z',
      'nightly:job-2:2026-11-29T03:00:00Z',
      'nightly:job-3:2026-11-29T03:00:00Z',
    ]);
    expect(result.duplicates).toEqual([]);
    expect(queue.sent).toHaveLength(3);
    const record = await store.get('nightly:job-2:2026-11-29T03:00:00Z');
    expect(record).toMatchObject({ status: 'queued', pipeline: 'p', schedule: 'nightly', runs: [] });
    expect(record?.enqueuedAt).toBeTypeOf('number');
    expect(record?.request).toHaveProperty(['messages', 0], { role: 'user', content: 'task 2' });
  });

  it('enqueues one set of jobs when the same schedule fires twice for the same time', async () => {
    const { queue, store, deps } = setup();
    const first = await fanOutSchedule(scheduleOf(5), 'nightly', TIME, deps);
    const second = await fanOutSchedule(scheduleOf(5), 'nightly', '2026-11-29T03:00:00.000Z', deps);
    expect(first.enqueued).toHaveLength(5);
    expect(second.enqueued).toEqual([]);
    expect(second.duplicates).toHaveLength(5);
    expect(queue.sent).toHaveLength(5);
    expect(store.all()).toHaveLength(5);
  });

  it('gives each scheduled job a random public id, linked to its internal id, that a repeat firing keeps', async () => {
    const { store, deps } = setup();
    const first = await fanOutSchedule(scheduleOf(3), 'nightly', TIME, deps);
    const ids = first.enqueued.map((e) => e.publicId);
    for (const id of ids) expect(id).toMatch(/^job_[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(3);
    for (const e of first.enqueued) expect((await store.getByPublicId(e.publicId))?.jobId).toBe(e.jobId);
    await fanOutSchedule(scheduleOf(3), 'nightly', TIME, deps);
    const stored = await Promise.all(first.enqueued.map((e) => store.get(e.jobId)));
    expect(stored.map((r) => r?.publicId)).toEqual(ids);
  });

  it('enqueues a new set for the next scheduled time', async () => {
    const { queue, deps } = setup();
    await fanOutSchedule(scheduleOf(2), 'nightly', TIME, deps);
    await fanOutSchedule(scheduleOf(2), 'nightly', '2026-11-30T03:00:00Z', deps);
    expect(queue.sent).toHaveLength(4);
  });

  it('sends again a job whose record exists without enqueuedAt (a crash between put and send)', async () => {
    const { queue, deps } = setup();
    let sends = 0;
    const flaky: JobQueue = {
      async send(message, options) {
        sends += 1;
        if (sends === 2) throw new Error('connection reset');
        await queue.send(message, options);
      },
    };
    const error = await fanOutSchedule(scheduleOf(3), 'nightly', TIME, {
      ...deps,
      queue: flaky,
      concurrency: 1,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FanOutError);
    expect([...(error as FanOutError).failures.keys()]).toEqual(['nightly:job-2:2026-11-29T03:00:00Z']);
    expect((error as FanOutError).result.enqueued).toHaveLength(2);

    const retry = await fanOutSchedule(scheduleOf(3), 'nightly', TIME, deps);
    expect(retry.enqueued).toEqual([
      expect.objectContaining({ jobId: 'nightly:job-2:2026-11-29T03:00:00Z', resent: true }),
    ]);
    expect(retry.duplicates).toHaveLength(2);
    expect(queue.sent.map((s) => s.message.jobId).sort()).toEqual([
      'nightly:job-1:2026-11-29T03:00:00Z',
      'nightly:job-2:2026-11-29T03:00:00Z',
      'nightly:job-3:2026-11-29T03:00:00Z',
    ]);
  });

  it('spreads 50 jobs over spreadSeconds 60: every 10-second bucket used, none above 60', async () => {
    const { queue, deps } = setup(2026);
    const result = await fanOutSchedule(scheduleOf(50, { spreadSeconds: 60 }), 'burst', TIME, deps);
    const delays = result.enqueued.map((e) => e.delaySeconds);
    expect(queue.sent.map((s) => s.delaySeconds).sort()).toEqual([...delays].sort());
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...delays)).toBeLessThanOrEqual(60);
    const buckets = new Set(delays.map((d) => Math.min(5, Math.floor(d / 10))));
    expect([...buckets].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    // Not all the same second: the spike is actually flattened.
    expect(new Set(delays).size).toBeGreaterThan(20);
  });

  it('sends without delay when the schedule has no spreadSeconds', async () => {
    const { queue, deps } = setup();
    await fanOutSchedule(scheduleOf(10), 'nightly', TIME, deps);
    expect(queue.sent.every((s) => s.delaySeconds === 0)).toBe(true);
  });

  it('keeps the schedule deliver target on each record and a TTL of retentionDays', async () => {
    const { store, clock, deps } = setup();
    const deliver = { url: 'http://127.0.0.1:9/hook', secretEnv: 'HOOK_SECRET' };
    await fanOutSchedule(scheduleOf(1, { deliver }), 'nightly', TIME, { ...deps, retentionDays: 2 });
    const record = await store.get('nightly:job-1:2026-11-29T03:00:00Z');
    expect(record?.deliver).toEqual({ url: deliver.url, secretEnv: 'HOOK_SECRET', secretName: undefined });
    expect(record?.expiresAt).toBe(Math.floor(clock.now() / 1000) + 2 * 86_400);
  });
});

describe('normalizeScheduledTime', () => {
  it.each([
    ['2026-11-29T03:00:00Z', '2026-11-29T03:00:00Z'],
    ['2026-11-29T03:00:00.000Z', '2026-11-29T03:00:00Z'],
    ['2026-11-29T04:00:00+01:00', '2026-11-29T03:00:00Z'],
    ['2026-11-29T03:00:00.999Z', '2026-11-29T03:00:00Z'],
  ])('reads %s as %s', (input, expected) => {
    expect(normalizeScheduledTime(input)).toBe(expected);
  });

  it('refuses a time that does not parse', () => {
    expect(() => normalizeScheduledTime('tomorrow at 3')).toThrow(/not an ISO 8601 time/);
  });
});
