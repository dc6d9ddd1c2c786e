import { describe, expect, it } from 'vitest';
import { fanOutSchedule } from '../../../lambda/core/jobs/fan-out-schedule.js';
import { seededRandom } from '../../../lambda/wiring/seeded-random.js';
import { createJobHarness, recordingDeliverer, scheduleOf } from '../../helpers/job-harness.js';

const TIME = '2026-11-29T03:00:00Z';
const ID = `nightly:job-1:${TIME}`;
const DELIVER = { url: 'http://127.0.0.1:9/hook', secretEnv: 'HOOK_SECRET' };

async function harnessWithJob(options: { deliver?: boolean; maxReceiveCount?: number } = {}) {
  const h = createJobHarness({ maxReceiveCount: options.maxReceiveCount });
  const schedule = scheduleOf(1, options.deliver === false ? {} : { deliver: DELIVER });
  await fanOutSchedule(schedule, 'nightly', TIME, {
    store: h.store,
    queue: h.queue,
    clock: h.clock,
    random: seededRandom(1),
    retentionDays: 14,
  });
  return h;
}

/** One SQS-style receive: run the job, delete on done, leave it in flight on retry. */
async function receiveAndRun(h: ReturnType<typeof createJobHarness>) {
  const [job] = await h.queue.receive(1);
  if (!job) return 'empty' as const;
  const outcome = await h.run(job.message.jobId);
  if (outcome === 'done') await h.queue.delete(job.receiptHandle);
  return outcome;
}

describe('runJob', () => {
  it('runs a queued job through the router with the job id as requestId, records the answer and delivers it', async () => {
    const h = await harnessWithJob();
    expect(await h.run(ID)).toBe('done');
    const record = await h.store.get(ID);
    expect(record).toMatchObject({
      status: 'succeeded',
      result: {
        content: expect.stringMatching(/^answer from /),
        finishReason: 'stop',
        usage: { inputTokens: 7, outputTokens: 3 },
      },
    });
    expect(record?.runs).toEqual([
      expect.objectContaining({ reason: 'success', attempts: 1, route: expect.stringMatching(/:200$/) }),
    ]);
    expect(h.requestLines().map((l) => l.requestId)).toEqual([ID]);
    expect(h.deliveries).toHaveLength(1);
    // Receivers see the job's public id; the ledger keeps the internal one.
    expect(record?.publicId).toMatch(/^job_[0-9a-f]{32}$/);
    expect(h.deliveries[0]?.body).toMatchObject({
      jobId: record?.publicId,
      status: 'succeeded',
      pipeline: 'p',
    });
    expect(h.deliveries[0]?.body.result?.choices[0]?.message.content).toMatch(/^answer from /);
    expect(record?.deliver?.deliveredAt).toBe(h.clock.now());
  });

  it('acknowledges a job that already succeeded without running or delivering it again (a replay)', async () => {
    const h = await harnessWithJob();
    await h.run(ID);
    const calls = h.upstreamCalls();
    expect(await h.run(ID)).toBe('done');
    expect(await h.run(ID)).toBe('done');
    expect(h.upstreamCalls()).toBe(calls);
    expect(h.deliveries).toHaveLength(1);
    expect(h.requestLines()).toHaveLength(1);
  });

  it('fails an invalid request at once, terminally, without fallback, and delivers the failure once', async () => {
    const h = await harnessWithJob();
    h.state.upstream = { fail: 'invalid_request', status: 400 };
    expect(await h.run(ID)).toBe('done');
    const record = await h.store.get(ID);
    expect(record).toMatchObject({
      status: 'failed',
      error: { code: 'invalid_request', message: 'scripted invalid_request' },
    });
    expect(record?.runs).toEqual([
      expect.objectContaining({ reason: 'stopped', attempts: 1, failureClass: 'invalid_request' }),
    ]);
    expect(h.upstreamCalls()).toBe(1);
    expect(h.deliveries.map((d) => d.body.status)).toEqual(['failed']);
    expect(await h.run(ID)).toBe('done');
    expect(h.upstreamCalls()).toBe(1);
    expect(h.deliveries).toHaveLength(1);
  });

  it('puts a job whose every route fails back as retrying, keeping the attempt summary of the run', async () => {
    const h = await harnessWithJob();
    h.state.upstream = { fail: 'unavailable', status: 503 };
    expect(await h.run(ID)).toBe('retry');
    const record = await h.store.get(ID);
    expect(record?.status).toBe('retrying');
    expect(record?.runs).toEqual([
      expect.objectContaining({
        reason: 'exhausted',
        attempts: 3,
        failureClass: 'unavailable',
        route: expect.stringContaining(':503'),
      }),
    ]);
    expect(h.deliveries).toEqual([]);
  });

  it('sends a failing job to the dead-letter queue after maxReceiveCount receives; a replay runs it once', async () => {
    const h = await harnessWithJob({ maxReceiveCount: 3 });
    h.state.upstream = { fail: 'unavailable', status: 503 };
    for (let receive = 1; receive <= 3; receive += 1) {
      expect(await receiveAndRun(h)).toBe('retry');
      h.clock.advance(31_000); // the visibility timeout passes
    }
    expect(await receiveAndRun(h)).toBe('empty');
    expect(h.queue.deadLetters()).toEqual([{ jobId: ID }]);
    const parked = await h.store.get(ID);
    expect(parked?.status).toBe('retrying');
    expect(parked?.runs.map((r) => r.reason)).toEqual(['exhausted', 'exhausted', 'exhausted']);

    h.state.upstream = { ok: true };
    expect(h.queue.redrive()).toBe(1);
    expect(await receiveAndRun(h)).toBe('done');
    expect((await h.store.get(ID))?.status).toBe('succeeded');
    expect(h.deliveries).toHaveLength(1);

    // The same message replayed again (a second redrive of a copy) runs nothing.
    const calls = h.upstreamCalls();
    await h.queue.send({ jobId: ID }, { delaySeconds: 0 });
    expect(await receiveAndRun(h)).toBe('done');
    expect(h.upstreamCalls()).toBe(calls);
    expect(h.deliveries).toHaveLength(1);
  });

  it('leaves a job another worker holds to that worker', async () => {
    const h = await harnessWithJob();
    await h.store.claim(ID, h.clock.now(), 60_000);
    expect(await h.run(ID)).toBe('retry');
    expect(h.upstreamCalls()).toBe(0);
    h.clock.advance(60_001); // the other worker's lease ran out: it crashed
    expect(await h.run(ID)).toBe('done');
    expect(h.upstreamCalls()).toBe(1);
  });

  it('keeps a succeeded job whose webhook failed, and delivers it on the next receive without running it', async () => {
    const h = await harnessWithJob();
    const flaky = recordingDeliverer([
      { ok: false, reason: 'receiver answered 503' },
      { ok: true, status: 204 },
    ]);
    expect(await h.run(ID, flaky.deliverer)).toBe('retry');
    expect((await h.store.get(ID))?.status).toBe('succeeded');
    expect((await h.store.get(ID))?.deliver?.deliveredAt).toBeUndefined();
    expect(await h.run(ID, flaky.deliverer)).toBe('done');
    expect(await h.run(ID, flaky.deliverer)).toBe('done');
    expect(flaky.calls).toHaveLength(2);
    expect(h.upstreamCalls()).toBe(1);
    expect((await h.store.get(ID))?.deliver?.deliveredAt).toBeTypeOf('number');
  });

  it('delivers nothing for a job without a deliver target', async () => {
    const h = await harnessWithJob({ deliver: false });
    expect(await h.run(ID)).toBe('done');
    expect(h.deliveries).toEqual([]);
  });

  it('acknowledges a message whose record is gone (expired) without running anything', async () => {
    const h = createJobHarness();
    expect(await h.run('nightly:gone:2026-01-01T00:00:00Z')).toBe('done');
    expect(h.upstreamCalls()).toBe(0);
  });

  it('fails a job terminally when its pipeline no longer resolves', async () => {
    const h = createJobHarness();
    await h.store.create({
      jobId: 'job_x',
      pipeline: 'retired-pipeline',
      request: { messages: [{ role: 'user', content: 'hi' }] },
      status: 'queued',
      createdAt: 0,
      updatedAt: 0,
      runs: [],
      // A live record: the memory store, like the table, treats a past expiresAt as deleted.
      expiresAt: 4_000_000_000,
    });
    expect(await h.run('job_x')).toBe('done');
    expect(await h.store.get('job_x')).toMatchObject({
      status: 'failed',
      error: { code: 'model_not_found' },
    });
    expect(h.upstreamCalls()).toBe(0);
  });
});
