import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { idempotentJobId } from '../../lambda/doors/jobs/jobs-routes.js';
import {
  type GatewayHarness,
  type MemoryJobs,
  memoryJobs,
  startGatewayHarness,
  waitFor,
} from '../helpers/gateway-harness.js';

const BODY = { model: 'p', messages: [{ role: 'user', content: 'summarise the night' }] };

let h: GatewayHarness;
let jobs: MemoryJobs;

beforeEach(async () => {
  jobs = memoryJobs();
  h = await startGatewayHarness({ p: { chain: 'a,b' } }, { jobs });
});

afterEach(() => h.close());

const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${h.url}/v1/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
/** A job body whose tool schema nests `levels` objects deep, as text (too deep to stringify). */
const deepTools = (levels: number) =>
  `{"model":"p","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f","parameters":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}}}]}`;
const get = (id: string) => fetch(`${h.url}/v1/jobs/${encodeURIComponent(id)}`);

describe('POST /v1/jobs', () => {
  it('persists the job, enqueues it and answers 202 with a durable id', async () => {
    const res = await post(BODY);
    expect(res.status).toBe(202);
    const job = await res.json();
    expect(job).toMatchObject({ object: 'job', status: 'queued', pipeline: 'p', enqueued: true, runs: [] });
    expect(job.id).toMatch(/^job_[0-9a-f]{32}$/);
    expect(job.created).toBeTypeOf('number');
    expect(res.headers.get('location')).toBe(`/v1/jobs/${job.id}`);
    expect((await jobs.store.get(job.id))?.status).toBe('queued');
    expect(jobs.queue.sent.map((s) => s.message.jobId)).toEqual([job.id]);
  });

  it('gives one job for two POSTs with one Idempotency-Key', async () => {
    const key = { 'idempotency-key': 'nightly-report-2026-11-29' };
    const first = await post(BODY, key);
    const second = await post(BODY, key);
    expect(first.status).toBe(202);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const [a, b] = [await first.json(), await second.json()];
    expect(b.id).toBe(a.id);
    expect(a.id).toBe(idempotentJobId(undefined, 'nightly-report-2026-11-29'));
    expect(jobs.store.all()).toHaveLength(1);
    expect(jobs.queue.sent).toHaveLength(1);
  });

  it('refuses an Idempotency-Key reused for a different request with 409', async () => {
    const key = { 'idempotency-key': 'k-1' };
    await post(BODY, key);
    const res = await post({ ...BODY, messages: [{ role: 'user', content: 'something else' }] }, key);
    expect(res.status).toBe(409);
    expect((await res.json()).error).toMatchObject({
      code: 'idempotency_key_reused',
      param: 'Idempotency-Key',
    });
    expect(jobs.store.all()).toHaveLength(1);
  });

  it.each([
    ['malformed JSON', '{"model": "p",', 'invalid_json', null],
    ['no messages', { model: 'p', messages: [] }, 'invalid_value', 'messages'],
    [
      'a bad role',
      { model: 'p', messages: [{ role: 'wizard', content: 'x' }] },
      'invalid_value',
      'messages[0].role',
    ],
    ['a streamed job', { ...BODY, stream: true }, 'invalid_value', 'stream'],
  ])('answers 400 for %s, naming the field, and stores nothing', async (_name, body, code, param) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ type: 'invalid_request_error', code, param });
    expect(jobs.store.all()).toEqual([]);
    expect(jobs.queue.sent).toEqual([]);
  });

  it('answers 400 for an Idempotency-Key that is not printable ASCII', async () => {
    const res = await post(BODY, { 'idempotency-key': 'has space' });
    expect(res.status).toBe(400);
    expect((await res.json()).error.param).toBe('Idempotency-Key');
  });

  it.each([
    [
      'too many messages',
      { ...BODY, messages: Array.from({ length: 1_001 }, () => BODY.messages[0]) },
      'messages',
    ],
    ['max_tokens over the output bound', { ...BODY, max_tokens: 32_769 }, 'max_tokens'],
    // These two answered 500 (the job store's copy overflowed the stack): issue 26.
    ['3,000-deep tool parameters', deepTools(3_000), 'tools[0].function.parameters.a.a.a.a…'],
    ['5,000-deep tool parameters', deepTools(5_000), 'tools[0].function.parameters.a.a.a.a…'],
  ])('answers 400 limit_exceeded for %s, and stores nothing', async (_label, body, param) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ code: 'limit_exceeded', param });
    expect(jobs.store.all()).toEqual([]);
  });

  it('answers 404 for an unknown pipeline, and stores nothing', async () => {
    const res = await post({ ...BODY, model: 'no-such-pipeline' });
    expect(res.status).toBe(404);
    expect((await res.json()).error).toMatchObject({ code: 'model_not_found', param: 'model' });
    expect(jobs.store.all()).toEqual([]);
  });
});

describe('GET /v1/jobs/{id}', () => {
  it('shows the status, the answer in OpenAI shape and the attempt summary once the worker ran it', async () => {
    h.openai.script('model-a', [{ status: 503 }]);
    const { id } = await (await post(BODY)).json();
    h.startWorker();
    await waitFor(() => jobs.store.all()[0]?.status === 'succeeded');
    const res = await get(id);
    expect(res.status).toBe(200);
    const job = await res.json();
    expect(job).toMatchObject({
      id,
      status: 'succeeded',
      attempts: 2,
      error: null,
      delivery: { status: 'none' },
    });
    expect(job.runs).toEqual([
      {
        at: expect.any(String),
        reason: 'success',
        attempts: 2,
        route: 'a:503,b:200',
        model: 'b',
        failure_class: null,
      },
    ]);
    expect(job.result).toMatchObject({
      object: 'chat.completion',
      model: 'b',
      choices: [{ finish_reason: 'stop' }],
    });
    expect(job.result.choices[0].message.content).toBeTypeOf('string');
    expect(job.result.usage.total_tokens).toBeGreaterThan(0);
    // The ledger carries the job id as its requestId.
    expect(h.ledger.filter((e) => e.type === 'request').map((e) => e.requestId)).toEqual([id]);
  });

  it('shows a terminal failure for an invalid request, after one attempt', async () => {
    h.openai.script('model-a', [
      { status: 400, errorMessage: 'Unrecognized request argument supplied: foo' },
    ]);
    const { id } = await (await post(BODY)).json();
    h.startWorker();
    await waitFor(() => jobs.store.all()[0]?.status === 'failed');
    const job = await (await get(id)).json();
    expect(job).toMatchObject({ status: 'failed', result: null, attempts: 1 });
    expect(job.error.code).toBe('invalid_request');
    expect(h.openai.requestsFor('model-b')).toHaveLength(0);
  });

  it('answers 404 for an unknown job', async () => {
    const res = await get('job_00000000000000000000000000000000');
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('job_not_found');
  });

  it('reads a scheduled job by its id with colons', async () => {
    const id = 'nightly:acct-1:2026-11-29T03:00:00Z';
    await jobs.store.create({
      jobId: id,
      pipeline: 'p',
      request: { messages: [{ role: 'user', content: 'x' }] },
      status: 'queued',
      createdAt: Date.now(),
      updatedAt: Date.now(),
      runs: [],
      schedule: 'nightly',
      expiresAt: Math.floor(Date.now() / 1000) + 60,
    });
    const job = await (await get(id)).json();
    expect(job).toMatchObject({ id, schedule: 'nightly', status: 'queued', enqueued: false });
  });
});
