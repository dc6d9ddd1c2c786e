import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../lambda/core/jobs/job.js';
import { createMemoryJobStore, JobStoreFullError } from '../../../lambda/jobs/memory/memory-job-store.js';
import { createFakeClock } from '../../helpers/fake-clock.js';

const T0 = Date.UTC(2026, 10, 29, 3, 0, 0);
const T0_S = T0 / 1000;
const RUN = { at: T0, reason: 'success' as const, attempts: 1, route: 'a:200' };

function job(jobId: string, overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    jobId,
    pipeline: 'p',
    request: { messages: [{ role: 'user', content: 'x' }] },
    status: 'queued',
    createdAt: T0,
    updatedAt: T0,
    runs: [],
    expiresAt: T0_S + 60,
    ...overrides,
  };
}

async function finish(store: ReturnType<typeof createMemoryJobStore>, jobId: string) {
  await store.claim(jobId, T0, 1_000);
  await store.succeed(jobId, { model: 'a', content: 'ok', finishReason: 'stop' }, RUN, T0);
}

describe('memory job store', () => {
  it('keeps a job until its expiresAt, like the table TTL, then forgets it and lets the id be reused', async () => {
    const clock = createFakeClock(T0);
    const store = createMemoryJobStore({ clock });
    await store.create(job('j1'));
    clock.set((T0_S + 59) * 1000);
    expect((await store.get('j1'))?.jobId).toBe('j1');
    clock.set((T0_S + 60) * 1000);
    expect(await store.get('j1')).toBeUndefined();
    expect(store.all()).toEqual([]);
    expect(await store.create(job('j1', { expiresAt: T0_S + 120 }))).toBe(true);
  });

  it('drops the oldest finished job to make room at maxJobs', async () => {
    const store = createMemoryJobStore({ clock: createFakeClock(T0), maxJobs: 3 });
    for (const id of ['old', 'mid', 'new']) {
      await store.create(job(id));
      await finish(store, id);
    }
    expect(await store.create(job('next'))).toBe(true);
    expect(store.all().map((r) => r.jobId)).toEqual(['mid', 'new', 'next']);
  });

  it('never drops a queued or running job: at the bound it refuses the new one', async () => {
    const store = createMemoryJobStore({ clock: createFakeClock(T0), maxJobs: 2 });
    await store.create(job('queued'));
    await store.create(job('running'));
    await store.claim('running', T0, 60_000);
    await expect(store.create(job('third'))).rejects.toBeInstanceOf(JobStoreFullError);
    expect(store.all().map((r) => r.jobId)).toEqual(['queued', 'running']);
  });

  it('bounds the bytes held: big finished answers make room for new jobs', async () => {
    const store = createMemoryJobStore({ clock: createFakeClock(T0), maxBytes: 5_000 });
    const big = { messages: [{ role: 'user' as const, content: 'x'.repeat(2_000) }] };
    await store.create(job('a', { request: big }));
    await finish(store, 'a');
    await store.create(job('b', { request: big }));
    await store.create(job('c', { request: big }));
    expect(store.all().map((r) => r.jobId)).toEqual(['b', 'c']);
  });

  it('finds a scheduled job by its linked public id, never by its internal id', async () => {
    const store = createMemoryJobStore({ clock: createFakeClock(T0) });
    const publicId = 'job_0123456789abcdef0123456789abcdef';
    await store.create(job('nightly:a:2026-11-29T03:00:00Z', { publicId }));
    expect(await store.getByPublicId(publicId)).toBeUndefined();
    await store.linkPublicId(publicId, 'nightly:a:2026-11-29T03:00:00Z', T0_S + 60);
    expect((await store.getByPublicId(publicId))?.jobId).toBe('nightly:a:2026-11-29T03:00:00Z');
    expect(await store.getByPublicId('nightly:a:2026-11-29T03:00:00Z')).toBeUndefined();
  });
});
