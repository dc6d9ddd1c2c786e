import { afterEach, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../lambda/aws/dynamodb-client.js';
import type { AdmissionStore } from '../../lambda/core/admission/admission-store.js';
import { dayBucket, utcDay } from '../../lambda/core/admission/admission-windows.js';
import { toNano } from '../../lambda/core/admission/limit-plan.js';
import { createDynamoDbAdmissionStore } from '../../lambda/stores/dynamodb-admission-store.js';
import { createMemoryAdmissionStore } from '../../lambda/stores/memory-admission-store.js';
import { systemClock } from '../../lambda/wiring/system-time.js';
import { openBreakerTable, startDynalite } from '../helpers/dynalite.js';
import {
  bearer,
  type GatewayHarness,
  HELLO,
  memoryJobs,
  startGatewayHarness,
  waitFor,
} from '../helpers/gateway-harness.js';

const KEYS = { alice: 'sk-alice-0123456789', bob: 'sk-bob-0123456789', ops: 'sk-ops-0123456789' };
const AUTH = { keys: KEYS, operatorKeys: ['ops'] };

const open: GatewayHarness[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
  for (const c of cleanups.splice(0)) await c();
});

async function gateway(admission: Record<string, unknown>, store?: AdmissionStore) {
  const h = await startGatewayHarness(
    { p: { chain: 'a, b' } },
    {
      auth: AUTH,
      admissionStore: store,
      configure: (config) => {
        config.admission = admission;
      },
    },
  );
  open.push(h);
  return h;
}

/** The spend the day's counter of `counter` holds, in nano-US$. */
async function spentToday(store: AdmissionStore, counter: string): Promise<number> {
  const now = Date.now();
  const buckets = await store.read(counter, dayBucket(utcDay(now)), now);
  return buckets.get(dayBucket(utcDay(now))) ?? 0;
}

/** The day's spend once it equals `expected` (the settlement lands after the answer), or what it is after 5 s. */
async function settledTo(store: AdmissionStore, counter: string, expected: number): Promise<number> {
  const until = Date.now() + 5_000;
  let spent = await spentToday(store, counter);
  while (spent !== expected && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 10));
    spent = await spentToday(store, counter);
  }
  return spent;
}

describe('admission over HTTP', () => {
  it('refuses a key over its requests per minute with its own 429, sending nothing upstream and opening no breaker', async () => {
    const h = await gateway({ keys: { alice: { requestsPerMinute: 2 } } });
    for (let i = 0; i < 2; i += 1)
      expect((await h.post({ model: 'p', ...HELLO }, bearer(KEYS.alice))).status).toBe(200);
    const sent = h.received('model-a');
    const refused = await h.post({ model: 'p', ...HELLO }, bearer(KEYS.alice));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    const body = (await refused.json()) as { error: { code: string; param: string; message: string } };
    expect(body.error).toMatchObject({
      code: 'rate_limit_exceeded',
      param: 'admission.keys.alice.requestsPerMinute',
    });
    expect(body.error.message).toMatch(/resets at \d{4}-\d\d-\d\dT/);
    expect(h.received('model-a')).toBe(sent);
    expect(h.requests()).toHaveLength(2);
    const breakers = await fetch(`${h.url}/v1/breakers?pipeline=p`, { headers: bearer(KEYS.ops) });
    const views = ((await breakers.json()) as { data: { state: string; windowAttempts: number }[] }).data;
    expect(views.every((v) => v.state === 'closed')).toBe(true);
    // Another key has its own default: none, so it is admitted.
    expect((await h.post({ model: 'p', ...HELLO }, bearer(KEYS.bob))).status).toBe(200);
  });

  it('refuses a request whose worst case does not fit the day with budget_exceeded and the time of the reset', async () => {
    // max_tokens 2000 at $8 per million output tokens reserves $0.016: more than the whole $0.01.
    const h = await gateway({ defaultKey: { usdPerDay: 0.01 } });
    const refused = await h.post({ model: 'p', max_tokens: 2_000, ...HELLO }, bearer(KEYS.bob));
    expect(refused.status).toBe(429);
    const midnight = new Date(Date.now() - (Date.now() % 86_400_000) + 86_400_000).toISOString();
    const body = (await refused.json()) as { error: { code: string; param: string; message: string } };
    expect(body.error).toMatchObject({ code: 'budget_exceeded', param: 'admission.defaultKey.usdPerDay' });
    expect(body.error.message).toContain(`resets at ${midnight}`);
    expect(h.received('model-a')).toBe(0);
  });

  it('tells the budget left and settles the day to the cost of every attempt, a fallback included', async () => {
    const store = createMemoryAdmissionStore(systemClock);
    const h = await gateway({ keys: { alice: { usdPerDay: 1 } } }, store);
    h.openai.script('model-a', [{ status: 503 }]);
    const answer = await h.post({ model: 'p', max_tokens: 1_000, ...HELLO }, bearer(KEYS.alice));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-switchyard-steps')).toBe('first,substitute');
    // $1 less the reservation: 1000 output tokens at $8 per million and the input estimate at $2.
    const left = Number(answer.headers.get('x-switchyard-budget-remaining'));
    expect(left).toBeLessThan(1 - 0.008);
    expect(left).toBeGreaterThan(1 - 0.0081);
    const costs = h
      .attempts()
      .reduce((sum, a) => sum + toNano(a.type === 'attempt' ? (a.costUsd ?? 0) : 0), 0);
    expect(costs).toBeGreaterThan(0);
    expect(await settledTo(store, 'key:alice:spend', costs)).toBe(costs);
  });

  it('settles a stream when it ends', async () => {
    const store = createMemoryAdmissionStore(systemClock);
    const h = await gateway({ keys: { alice: { usdPerDay: 1 } } }, store);
    const stream = await h.post({ model: 'p', stream: true, ...HELLO }, bearer(KEYS.alice));
    expect(stream.status).toBe(200);
    await stream.text();
    await waitFor(() => h.requests().length === 1);
    const cost = h
      .attempts()
      .reduce((sum, a) => sum + toNano(a.type === 'attempt' ? (a.costUsd ?? 0) : 0), 0);
    expect(await settledTo(store, 'key:alice:spend', cost)).toBe(cost);
  });

  it('shows the calling key its own limits and use on GET /v1/usage, and nobody else its', async () => {
    const h = await gateway({
      keys: { alice: { usdPerDay: 1, requestsPerMinute: 5 } },
      pipelines: { p: { requestsPerMinute: 9 } },
    });
    expect((await h.post({ model: 'p', ...HELLO }, bearer(KEYS.alice))).status).toBe(200);
    const usage = await fetch(`${h.url}/v1/usage`, { headers: bearer(KEYS.alice) });
    const body = (await usage.json()) as {
      key: string;
      data: { field: string; used: number; limit: number }[];
    };
    expect(body.key).toBe('alice');
    expect(body.data.map((l) => [l.field, l.limit])).toEqual([
      ['admission.keys.alice.requestsPerMinute', 5],
      ['admission.keys.alice.usdPerDay', 1],
    ]);
    expect(body.data[0]?.used).toBe(1);
    const bob = (await (await fetch(`${h.url}/v1/usage`, { headers: bearer(KEYS.bob) })).json()) as {
      data: unknown[];
    };
    expect(bob.data).toEqual([]);
    const bad = await fetch(`${h.url}/v1/usage?day=yesterday`, { headers: bearer(KEYS.alice) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('day');
  });

  it('shares a pipeline limit between two gateways on one DynamoDB table', async () => {
    const dynalite = await startDynalite();
    const table = await openBreakerTable(dynalite);
    cleanups.push(
      () => dynalite.stop(),
      () => table.close(),
    );
    const storeOf = () =>
      createDynamoDbAdmissionStore({
        client: createDocumentClient(table.connect().client),
        tableName: table.tableName,
      });
    const limits = { pipelines: { p: { requestsPerMinute: 3 } } };
    const one = await gateway(limits, storeOf());
    const two = await gateway(limits, storeOf());
    expect((await one.post({ model: 'p', ...HELLO }, bearer(KEYS.alice))).status).toBe(200);
    expect((await two.post({ model: 'p', ...HELLO }, bearer(KEYS.bob))).status).toBe(200);
    expect((await one.post({ model: 'p', ...HELLO }, bearer(KEYS.bob))).status).toBe(200);
    const refused = await two.post({ model: 'p', ...HELLO }, bearer(KEYS.alice));
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { param: string } }).error.param).toBe(
      'admission.pipelines.p.requestsPerMinute',
    );
    // Each gateway has its own fakes: three requests went upstream in all, the refused one nowhere.
    expect(two.received('model-a') + one.received('model-a')).toBe(3);
  });
});

describe('admission of jobs', () => {
  it("counts API jobs against their pipeline's limit at POST, and keeps a run refused by it retrying, never lost", async () => {
    const jobs = memoryJobs();
    const h = await startGatewayHarness(
      { p: { chain: 'a, b' } },
      {
        jobs,
        configure: (config) => {
          config.admission = { pipelines: { p: { requestsPerMinute: 1 } } };
        },
      },
    );
    open.push(h);
    const body = { model: 'p', messages: [{ role: 'user' as const, content: 'summarise the night' }] };
    const post = () =>
      fetch(`${h.url}/v1/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const first = ((await (await post()).json()) as { id: string }).id;
    const refused = await post();
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string; param: string } }).error).toMatchObject({
      code: 'rate_limit_exceeded',
      param: 'admission.pipelines.p.requestsPerMinute',
    });
    // A run with no reservation of its own (a scheduled job, or one stored before jobs were admitted at POST).
    const now = Date.now();
    const second = 'job_00000000000000000000000000000002';
    await jobs.store.create({
      jobId: second,
      pipeline: 'p',
      request: body,
      status: 'queued',
      createdAt: now,
      updatedAt: now,
      runs: [],
      expiresAt: Math.floor(now / 1000) + 86_400,
    });
    await jobs.queue.send({ jobId: second }, { delaySeconds: 0 });
    h.startWorker();
    await waitFor(() => {
      const records = [
        jobs.store.all().find((r) => r.jobId === first),
        jobs.store.all().find((r) => r.jobId === second),
      ];
      return records.every((r) => (r?.runs.length ?? 0) > 0);
    });
    const statuses = [first, second].map((id) => jobs.store.all().find((r) => r.jobId === id));
    const done = statuses.filter((r) => r?.status === 'succeeded');
    const waiting = statuses.filter((r) => r?.status === 'retrying');
    expect(done.map((r) => r?.jobId)).toEqual([first]);
    expect(waiting.map((r) => r?.jobId)).toEqual([second]);
    expect(waiting[0]?.runs[0]).toMatchObject({ attempts: 0, refused: { code: 'rate_limit_exceeded' } });
    const view = (await (await fetch(`${h.url}/v1/jobs/${second}`)).json()) as {
      runs: { refused?: { code: string; resets_at: string } }[];
    };
    expect(view.runs[0]?.refused?.code).toBe('rate_limit_exceeded');
    expect(h.received('model-a')).toBe(1);
  });
});
