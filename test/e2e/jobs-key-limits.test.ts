import { afterEach, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../lambda/core/jobs/job.js';
import { createMemoryJobQueue } from '../../lambda/jobs/memory/memory-job-queue.js';
import { createMemoryJobStore } from '../../lambda/jobs/memory/memory-job-store.js';
import { systemClock } from '../../lambda/wiring/system-time.js';
import {
  bearer,
  type GatewayHarness,
  type MemoryJobs,
  memoryJobs,
  startGatewayHarness,
  waitFor,
} from '../helpers/gateway-harness.js';

const KEYS = { alice: 'sk-alice-0123456789', bob: 'sk-bob-0123456789' };

// 40 characters of messages JSON = 10 input tokens; with max_tokens 10 at the harness's prices
// ($2 / $8 per MTok) one reservation is exactly $0.0001, so a $0.0005 cap holds exactly five.
const JOB = { model: 'p', max_tokens: 10, messages: [{ role: 'user' as const, content: 'abcdefghij' }] };

const open: GatewayHarness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});

async function gateway(jobs: MemoryJobs, configure: (config: Record<string, unknown>) => void) {
  const h = await startGatewayHarness({ p: { chain: 'a' } }, { jobs, auth: { keys: KEYS }, configure });
  open.push(h);
  return h;
}

const postJob = (h: GatewayHarness, key: string, body: unknown = JOB) =>
  fetch(`${h.url}/v1/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(key) },
    body: JSON.stringify(body),
  });

interface ErrorBody {
  error: { code: string; param: string | null; type: string };
}

/** Posts `n` jobs at once; the statuses, and the error bodies of the refused ones. */
async function postMany(h: GatewayHarness, key: string, n: number) {
  const answers = await Promise.all(Array.from({ length: n }, () => postJob(h, key)));
  const statuses = answers.map((a) => a.status);
  const errors = await Promise.all(
    answers.filter((a) => a.status !== 202).map(async (a) => ((await a.json()) as ErrorBody).error),
  );
  return { statuses, errors };
}

const finished = (jobs: MemoryJobs) =>
  jobs.store.all().filter((r) => r.status === 'succeeded' || r.status === 'failed');

describe("jobs count against their key's limits", () => {
  it('admits no more jobs than a $0.0005/day key can pay for: five at exactly the cap, fifteen refused 429 budget_exceeded', async () => {
    const jobs = memoryJobs();
    const h = await gateway(jobs, (config) => {
      config.admission = { keys: { alice: { usdPerDay: 0.0005 } } };
    });

    const { statuses, errors } = await postMany(h, KEYS.alice, 20);

    expect(statuses.filter((s) => s === 202)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    for (const error of errors)
      expect(error).toMatchObject({
        code: 'budget_exceeded',
        type: 'rate_limit_error',
        param: 'admission.keys.alice.usdPerDay',
      });
    expect(jobs.store.all()).toHaveLength(5);
    h.startWorker();
    await waitFor(() => finished(jobs).length === 5);
    expect(h.received('model-a')).toBe(5);
  });

  it("shows the jobs' spend in the key's /v1/usage once they ran", async () => {
    const jobs = memoryJobs();
    const h = await gateway(jobs, (config) => {
      config.admission = { keys: { alice: { usdPerDay: 1 } } };
    });
    for (let i = 0; i < 3; i += 1) expect((await postJob(h, KEYS.alice)).status).toBe(202);
    h.startWorker();
    await waitFor(() => finished(jobs).length === 3);
    const spent = h.attempts().reduce((sum, a) => sum + (a.type === 'attempt' ? (a.costUsd ?? 0) : 0), 0);
    expect(spent).toBeGreaterThan(0);

    const usage = async () => {
      const answer = await fetch(`${h.url}/v1/usage`, { headers: bearer(KEYS.alice) });
      const body = (await answer.json()) as { data: { kind: string; used: number }[] };
      return body.data.find((line) => line.kind === 'spend')?.used;
    };
    // The settlement lands just after the run's request line.
    const until = Date.now() + 5_000;
    let used = await usage();
    while (used !== undefined && Math.abs(used - spent) > 1e-9 && Date.now() < until) used = await usage();
    expect(used).toBeCloseTo(spent, 9);
  });

  it('lets a key limited to 10 requests a minute run 10 of 30 jobs sent within seconds; the 11th on is refused 429 rate_limit_exceeded', async () => {
    const jobs = memoryJobs();
    const h = await gateway(jobs, (config) => {
      config.admission = { keys: { alice: { requestsPerMinute: 10 } } };
    });

    const { statuses, errors } = await postMany(h, KEYS.alice, 30);

    expect(statuses.filter((s) => s === 202)).toHaveLength(10);
    expect(errors).toHaveLength(20);
    for (const error of errors)
      expect(error).toMatchObject({
        code: 'rate_limit_exceeded',
        param: 'admission.keys.alice.requestsPerMinute',
      });
    h.startWorker();
    await waitFor(() => finished(jobs).length === 10);
    // Runs of admitted jobs are not counted a second time: all ten ran at once.
    expect(jobs.store.all().every((r) => r.status === 'succeeded' && r.runs.length === 1)).toBe(true);
    expect(h.received('model-a')).toBe(10);
  });

  it("admits a job's retry against its key again: a key with no room left gets the retry refused, not run", async () => {
    // A failed run's message comes back after 0.5 s instead of the worker's 5 s (and SQS's 30 s):
    // time enough for the second POST below to land first, well inside waitFor's 5 s.
    const jobs: MemoryJobs = {
      store: createMemoryJobStore({ clock: systemClock }),
      queue: createMemoryJobQueue({ clock: systemClock, maxReceiveCount: 3, visibilityTimeoutSeconds: 0.05 }),
    };
    const h = await gateway(jobs, (config) => {
      config.admission = { keys: { alice: { requestsPerMinute: 2 } } };
    });
    // Every attempt of the first run fails (the router may try the route up to maxAttempts times).
    h.openai.script('model-a', [{ status: 503 }, { status: 503 }, { status: 503 }]);
    const first = ((await (await postJob(h, KEYS.alice)).json()) as { id: string }).id;
    h.startWorker({ retryDelaySeconds: 0.5 });
    await waitFor(() => (jobs.store.all().find((r) => r.jobId === first)?.runs.length ?? 0) === 1);
    // The first run used the POST's reservation; this second job takes the key's last request.
    expect((await postJob(h, KEYS.alice)).status).toBe(202);
    await waitFor(() => (jobs.store.all().find((r) => r.jobId === first)?.runs.length ?? 0) >= 2);
    const runs = jobs.store.all().find((r) => r.jobId === first)?.runs ?? [];
    expect(runs[0]?.attempts).toBeGreaterThan(0);
    expect(runs[0]?.refused).toBeUndefined();
    expect(runs[1]).toMatchObject({ attempts: 0, refused: { code: 'rate_limit_exceeded' } });
  });

  it('still runs a job stored before key admission (no key limits on its record) under its pipeline limits only', async () => {
    const jobs = memoryJobs();
    const h = await gateway(jobs, (config) => {
      config.admission = { keys: { alice: { requestsPerMinute: 1 } } };
    });
    expect((await postJob(h, KEYS.alice)).status).toBe(202);
    const now = Date.now();
    const legacy: JobRecord = {
      jobId: 'job_0123456789abcdef0123456789abcdef',
      pipeline: 'p',
      request: JOB,
      status: 'queued',
      createdAt: now,
      updatedAt: now,
      runs: [],
      expiresAt: Math.floor(now / 1000) + 86_400,
      owner: 'alice',
    };
    await jobs.store.create(legacy);
    await jobs.queue.send({ jobId: legacy.jobId }, { delaySeconds: 0 });
    h.startWorker();
    await waitFor(() => finished(jobs).length === 2);
    expect(jobs.store.all().map((r) => r.status)).toEqual(['succeeded', 'succeeded']);
  });
});

describe('job quotas per key', () => {
  it('refuses a key at its maxQueuedJobs with 429 job_quota_exceeded while another key is still accepted', async () => {
    const jobs = memoryJobs();
    const h = await gateway(jobs, (config) => {
      config.admission = { keys: { alice: { maxQueuedJobs: 3 } } };
    });
    for (let i = 0; i < 3; i += 1) expect((await postJob(h, KEYS.alice)).status).toBe(202);

    const over = await postJob(h, KEYS.alice);
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await over.json()) as ErrorBody).error).toMatchObject({
      code: 'job_quota_exceeded',
      type: 'rate_limit_error',
      param: 'admission.keys.alice.maxQueuedJobs',
    });
    expect((await postJob(h, KEYS.bob)).status).toBe(202);
    expect(jobs.store.all()).toHaveLength(4);
  });

  it('counts only unfinished jobs: once its jobs ran, the key is accepted again', async () => {
    const jobs = memoryJobs();
    const h = await gateway(jobs, (config) => {
      config.admission = { keys: { alice: { maxQueuedJobs: 2 } } };
    });
    for (let i = 0; i < 2; i += 1) expect((await postJob(h, KEYS.alice)).status).toBe(202);
    expect((await postJob(h, KEYS.alice)).status).toBe(429);
    h.startWorker();
    await waitFor(() => finished(jobs).length === 2);
    expect((await postJob(h, KEYS.alice)).status).toBe(202);
  });

  it('applies jobs.maxQueuedPerKey to every key without its own quota, so one key cannot fill the store', async () => {
    const jobs = memoryJobs({ maxJobs: 10 });
    const h = await gateway(jobs, (config) => {
      config.jobs = { maxQueuedPerKey: 4 };
    });
    const flood = await postMany(h, KEYS.alice, 12);
    expect(flood.statuses.filter((s) => s === 202)).toHaveLength(4);
    expect(flood.errors.map((e) => e.param)).toEqual(Array(8).fill('jobs.maxQueuedPerKey'));
    for (let i = 0; i < 4; i += 1) expect((await postJob(h, KEYS.bob)).status).toBe(202);
  });

  it('replays an idempotent job at its quota instead of refusing it', async () => {
    const jobs = memoryJobs();
    const h = await gateway(jobs, (config) => {
      config.admission = { keys: { alice: { maxQueuedJobs: 1, requestsPerMinute: 1 } } };
    });
    const send = () =>
      fetch(`${h.url}/v1/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'once', ...bearer(KEYS.alice) },
        body: JSON.stringify(JOB),
      });
    expect((await send()).status).toBe(202);
    const again = await send();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });
});
