import { describe, expect, it } from 'vitest';
import { fanOutSchedule } from '../../../lambda/core/jobs/fan-out-schedule.js';
import { silentLogger } from '../../../lambda/core/logger.js';
import { createLocalJobRunner } from '../../../lambda/jobs/runner/queue-poller.js';
import { seededRandom } from '../../../lambda/wiring/seeded-random.js';
import { waitFor } from '../../helpers/gateway-harness.js';
import { createJobHarness, scheduleOf } from '../../helpers/job-harness.js';

async function harnessWith(jobs: number) {
  const h = createJobHarness({ maxReceiveCount: 3 });
  await fanOutSchedule(scheduleOf(jobs), 'nightly', '2026-11-29T03:00:00Z', {
    store: h.store,
    queue: h.queue,
    clock: h.clock,
    random: seededRandom(3),
    retentionDays: 14,
  });
  return h;
}

describe('local job runner', () => {
  it('runs every queued job once, at most `concurrency` at a time, and deletes their messages', async () => {
    const h = await harnessWith(9);
    let active = 0;
    let peak = 0;
    const runner = createLocalJobRunner({
      consumer: h.queue,
      log: silentLogger,
      concurrency: 2,
      pollIntervalMs: 5,
      async run(jobId) {
        active += 1;
        peak = Math.max(peak, active);
        await new Promise((r) => setTimeout(r, 5));
        try {
          return await h.run(jobId);
        } finally {
          active -= 1;
        }
      },
    });
    runner.start();
    await waitFor(() => h.store.all().every((r) => r.status === 'succeeded'));
    await runner.stop();
    expect(peak).toBe(2);
    expect(h.requestLines()).toHaveLength(9);
    expect(h.queue.depth()).toEqual({ visible: 0, delayed: 0, inFlight: 0, dead: 0 });
  });

  it('releases a job that must run again, so it reaches the dead-letter queue after maxReceiveCount', async () => {
    const h = await harnessWith(1);
    h.state.upstream = { fail: 'unavailable', status: 503 };
    const runner = createLocalJobRunner({
      consumer: h.queue,
      log: silentLogger,
      pollIntervalMs: 5,
      retryDelaySeconds: 0,
      run: (jobId) => h.run(jobId),
    });
    runner.start();
    await waitFor(() => h.queue.deadLetters().length === 1);
    await runner.stop();
    const [record] = h.store.all();
    expect(record?.runs).toHaveLength(3);
    expect(record?.status).toBe('retrying');
  });

  it('releases the message when a run throws (a store outage), never dropping the job', async () => {
    const h = await harnessWith(1);
    let throws = 1;
    const runner = createLocalJobRunner({
      consumer: h.queue,
      log: silentLogger,
      pollIntervalMs: 5,
      retryDelaySeconds: 0,
      async run(jobId) {
        if (throws-- > 0) throw new Error('store unavailable');
        return h.run(jobId);
      },
    });
    runner.start();
    await waitFor(() => h.store.all()[0]?.status === 'succeeded');
    await runner.stop();
    expect(h.queue.deadLetters()).toEqual([]);
  });

  it('waits for the job in flight on stop, and receives nothing after', async () => {
    const h = await harnessWith(3);
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let started = 0;
    const runner = createLocalJobRunner({
      consumer: h.queue,
      log: silentLogger,
      concurrency: 1,
      pollIntervalMs: 5,
      async run(jobId) {
        started += 1;
        await gate;
        return h.run(jobId);
      },
    });
    runner.start();
    await waitFor(() => started === 1);
    const stopping = runner.stop();
    release();
    await stopping;
    expect(started).toBe(1);
    expect(runner.active()).toBe(0);
    expect(h.store.all().filter((r) => r.status === 'succeeded')).toHaveLength(1);
  });

  it('aborts runs still going after the grace period; the job goes back to the queue', async () => {
    const h = await harnessWith(1);
    let sawAbort = false;
    const runner = createLocalJobRunner({
      consumer: h.queue,
      log: silentLogger,
      pollIntervalMs: 5,
      run: (_jobId, signal) =>
        new Promise((resolve) =>
          signal.addEventListener('abort', () => {
            sawAbort = true;
            resolve('retry');
          }),
        ),
    });
    runner.start();
    await waitFor(() => runner.active() === 1);
    await runner.stop(20);
    expect(sawAbort).toBe(true);
    expect(h.queue.depth().inFlight + h.queue.depth().delayed + h.queue.depth().visible).toBe(1);
  });
});
