import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../lambda/core/jobs/job.js';
import type { JobQueue } from '../../../lambda/core/jobs/job-ports.js';
import { silentLogger } from '../../../lambda/core/logger.js';
import { admitJob, type JobAdmissionDeps } from '../../../lambda/doors/jobs/job-admission.js';
import { createMemoryJobQueue } from '../../../lambda/jobs/memory/memory-job-queue.js';
import { createMemoryJobStore } from '../../../lambda/jobs/memory/memory-job-store.js';
import { createFakeClock } from '../../helpers/fake-clock.js';

const record = (overrides: Partial<JobRecord> = {}): JobRecord => ({
  jobId: 'job_1',
  pipeline: 'p',
  request: { model: 'p', messages: [{ role: 'user', content: 'hi' }], temperature: 0.5 },
  status: 'queued',
  createdAt: 1_000,
  updatedAt: 1_000,
  runs: [],
  expiresAt: 4_000_000_000, // epoch seconds: far beyond the fake clock
  ...overrides,
});

function setup(options: { maxJobs?: number; queue?: JobQueue } = {}) {
  const clock = createFakeClock(5_000);
  const store = createMemoryJobStore({ maxJobs: options.maxJobs, clock });
  const queue = createMemoryJobQueue({ clock, maxReceiveCount: 3 });
  const deps: JobAdmissionDeps = { store, queue: options.queue ?? queue, clock, log: silentLogger };
  return { deps, store, queue, clock };
}

describe('admitJob', () => {
  it('saves the job, queues it once and marks it enqueued', async () => {
    const { deps, store, queue } = setup();
    const admission = await admitJob(deps, record(), false);
    expect(admission).toMatchObject({ kind: 'accepted', record: { enqueuedAt: 5_000, updatedAt: 5_000 } });
    expect(queue.depth().visible).toBe(1);
    expect((await store.get('job_1'))?.enqueuedAt).toBe(5_000);
  });

  it('replays the same request under an existing id without queueing it again', async () => {
    const { deps, queue } = setup();
    await admitJob(deps, record(), true);
    // Key order and absent members differ, as after a store round trip: still the same request.
    const again = record({
      request: {
        temperature: 0.5,
        messages: [{ role: 'user', content: 'hi' }],
        model: 'p',
        top_p: undefined,
      },
    });
    expect(await admitJob(deps, again, true)).toMatchObject({ kind: 'replayed', record: { jobId: 'job_1' } });
    expect(queue.depth().visible).toBe(1);
  });

  it('refuses a different request under an existing id', async () => {
    const { deps } = setup();
    await admitJob(deps, record(), true);
    const other = record({ request: { model: 'p', messages: [{ role: 'user', content: 'bye' }] } });
    expect(await admitJob(deps, other, true)).toEqual({ kind: 'conflict' });
  });

  it('leaves a job it could not queue saved, and queues it when the same request comes again', async () => {
    const failing: JobQueue = {
      send: async () => {
        throw new Error('queue down');
      },
    };
    const down = setup({ queue: failing });
    expect(await admitJob(down.deps, record(), true)).toEqual({ kind: 'unqueued', jobId: 'job_1' });
    expect((await down.store.get('job_1'))?.enqueuedAt).toBeUndefined();

    const retry = await admitJob({ ...down.deps, queue: down.queue }, record(), true);
    expect(retry).toMatchObject({ kind: 'replayed', record: { enqueuedAt: 5_000 } });
    expect(down.queue.depth().visible).toBe(1);
  });

  it('answers full, with the store saying why, when the local store holds its maximum', async () => {
    const { deps } = setup({ maxJobs: 1 });
    await admitJob(deps, record(), false);
    const admission = await admitJob(deps, record({ jobId: 'job_2' }), false);
    expect(admission).toEqual({
      kind: 'full',
      message: expect.stringContaining('the local job store is full'),
    });
  });
});
