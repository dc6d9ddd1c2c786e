import { GetQueueAttributesCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SwitchyardConfig } from '../../../lambda/config/switchyard-config.js';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';
import { fanOutSchedule } from '../../../lambda/core/jobs/fan-out-schedule.js';
import type { JobQueue } from '../../../lambda/core/jobs/job-ports.js';
import { silentLogger } from '../../../lambda/core/logger.js';
import type { FakeUpstream } from '../../../lambda/dev/fakes/fake-upstream.js';
import { startFakeOpenAI } from '../../../lambda/dev/fakes/openai-fake.js';
import { ensureJobQueues, type JobQueueAddresses } from '../../../lambda/jobs/aws/ensure-job-queues.js';
import { createLocalJobWorker } from '../../../lambda/jobs/runner/in-process-worker.js';
import type { LocalJobRunner } from '../../../lambda/jobs/runner/queue-poller.js';
import { type LocalJobBackend, selectJobBackend } from '../../../lambda/jobs/runner/select-job-backend.js';
import { createLocalGateway, type LocalGateway } from '../../../lambda/wiring/create-local-gateway.js';
import { seededRandom } from '../../../lambda/wiring/seeded-random.js';
import { type RunningServer, startServer } from '../../../lambda/wiring/start-server.js';
import { systemClock } from '../../../lambda/wiring/system-time.js';
import { runCliCaptured, writeTempConfig } from '../../helpers/cli-harness.js';
import { type RunningDynalite, startDynalite } from '../../helpers/dynalite.js';
import { FAUXQS_ENV, type RunningFauxqs, sqsClientFor, startFauxqs } from '../../helpers/fauxqs.js';
import { startWebhookReceiver } from '../../helpers/webhook-receiver.js';

const SECRET = 'whsec-flow-0123456789';
const TIME = '2026-11-29T03:00:00Z';
const MAX_RECEIVES = 3;

let fauxqs: RunningFauxqs;
let dynalite: RunningDynalite;
let sqs: SQSClient;
let openai: FakeUpstream;
let hooks: Awaited<ReturnType<typeof startWebhookReceiver>>;
let queues: JobQueueAddresses;
let env: NodeJS.ProcessEnv;
let config: SwitchyardConfig;
let backend: LocalJobBackend;
let local: LocalGateway;
let worker: LocalJobRunner | undefined;
let server: RunningServer | undefined;
let run = 0;

beforeAll(async () => {
  [fauxqs, dynalite, openai] = await Promise.all([startFauxqs(), startDynalite(), startFakeOpenAI()]);
  sqs = sqsClientFor(fauxqs.endpoint);
});

afterAll(async () => {
  sqs.destroy();
  await Promise.all([fauxqs.stop(), dynalite.stop(), openai.close()]);
});

beforeEach(async () => {
  run += 1;
  openai.reset();
  hooks = await startWebhookReceiver(SECRET);
  // Short visibility, so a receive that is neither deleted nor released comes back within a test.
  queues = await ensureJobQueues({
    client: sqs,
    endpoint: fauxqs.endpoint,
    queueName: `flow-${process.pid}-${run}`,
    visibilityTimeoutSeconds: 2,
    maxReceiveCount: MAX_RECEIVES,
  });
  env = {
    ...FAUXQS_ENV,
    AWS_ENDPOINT_URL_SQS: fauxqs.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: dynalite.endpoint,
    SWITCHYARD_JOB_QUEUE_URL: queues.queueUrl,
    SWITCHYARD_JOBS_TABLE: `jobs-${process.pid}-${run}`,
    HOOK_SECRET: SECRET,
    FAKE_KEY: 'sk-test-0123456789',
  };
  config = parseConfig({
    providers: { fake: { type: 'openai', baseURL: openai.url, apiKeyEnv: 'FAKE_KEY' } },
    models: { a: { provider: 'fake', model: 'model-a' }, b: { provider: 'fake', model: 'model-b' } },
    pipelines: { p: { chain: 'a,b', maxAttempts: 2 } },
    jobs: { maxReceiveCount: MAX_RECEIVES },
    schedules: {
      nightly: {
        expression: 'cron(0 3 * * ? *)',
        pipeline: 'p',
        jobs: [
          { id: 'acct-1', request: { messages: [{ role: 'user', content: 'digest for account 1' }] } },
          { id: 'acct-2', request: { messages: [{ role: 'user', content: 'digest for account 2' }] } },
        ],
        deliver: { url: hooks.url, secretEnv: 'HOOK_SECRET' },
      },
    },
  });
  backend = await selectJobBackend({ config, env, clock: systemClock, log: silentLogger });
  local = createLocalGateway({
    config,
    env,
    log: silentLogger,
    ledger: () => {},
    jobs: { store: backend.store, queue: backend.queue, retentionDays: config.jobs.retentionDays },
  });
});

afterEach(async () => {
  await worker?.stop(1_000);
  worker = undefined;
  await server?.close(500);
  server = undefined;
  backend.close();
  await hooks.close();
});

function startWorker() {
  worker = createLocalJobWorker({
    store: backend.store,
    consumer: backend.consumer,
    gateway: local.gateway,
    catalog: local.catalog,
    env,
    log: silentLogger,
    clock: systemClock,
    retryDelaySeconds: 0,
    pollIntervalMs: 20,
  });
  worker.start();
}

async function depth(queueUrl: string) {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  const n = (name: keyof NonNullable<typeof Attributes>) => Number(Attributes?.[name] ?? 0);
  return {
    visible: n('ApproximateNumberOfMessages'),
    inFlight: n('ApproximateNumberOfMessagesNotVisible'),
    delayed: n('ApproximateNumberOfMessagesDelayed'),
  };
}

const fanOut = (queue: JobQueue = backend.queue, spreadSeconds = 0, jobs?: number) => {
  const nightly = config.schedules?.nightly;
  if (!nightly) throw new Error('no schedule');
  const schedule = jobs
    ? {
        ...nightly,
        spreadSeconds,
        jobs: Array.from({ length: jobs }, (_, i) => ({
          id: `job-${i}`,
          request: nightly.jobs[0]?.request ?? { messages: [] },
        })),
      }
    : nightly;
  return fanOutSchedule(schedule, 'nightly', TIME, {
    store: backend.store,
    queue,
    clock: systemClock,
    random: seededRandom(run),
    retentionDays: 14,
  });
};

/** Polls a condition that may need a network call, every 50 ms, for at most `timeoutMs`. */
async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error('timed out waiting for a condition');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const IDS = [`nightly:acct-1:${TIME}`, `nightly:acct-2:${TIME}`];
const upstreamRequests = () => openai.requests.length;

describe('scheduled jobs on SQS (fauxqs) and DynamoDB (dynalite)', () => {
  it('enqueues one set of jobs when the same schedule fires twice for the same time', async () => {
    const first = await fanOut();
    const second = await fanOut();
    expect(first.enqueued.map((e) => e.jobId).sort()).toEqual(IDS);
    expect(second).toEqual({ enqueued: [], duplicates: expect.arrayContaining(IDS) });
    expect(await depth(queues.queueUrl)).toEqual({ visible: 2, inFlight: 0, delayed: 0 });
    for (const id of IDS) expect((await backend.store.get(id))?.status).toBe('queued');
  });

  it('spreads 50 jobs across a 60-second window as SQS DelaySeconds', async () => {
    const delays: number[] = [];
    const recording: JobQueue = {
      send: (message, options) => {
        delays.push(options.delaySeconds);
        return backend.queue.send(message, options);
      },
    };
    await fanOut(recording, 60, 50);
    expect(delays).toHaveLength(50);
    expect(Math.max(...delays)).toBeLessThanOrEqual(60);
    expect(new Set(delays.map((d) => Math.min(5, Math.floor(d / 10)))).size).toBe(6);
    const d = await depth(queues.queueUrl);
    expect(d.visible + d.delayed).toBe(50);
    expect(d.delayed).toBe(delays.filter((s) => s > 0).length);
  });

  it('parks a job whose every route keeps failing in the DLQ; replay brings it back once, and a second replay runs nothing', async () => {
    openai.setDefault('*', { status: 503 });
    await fanOut();
    startWorker();
    await waitFor(async () => (await depth(queues.dlqUrl)).visible === 2, 20_000);
    for (const id of IDS) {
      const parked = await backend.store.get(id);
      expect(parked?.status).toBe('retrying');
      expect(parked?.runs).toHaveLength(MAX_RECEIVES);
      expect(parked?.runs.map((r) => [r.reason, r.attempts, r.route])).toEqual(
        // Once a's breaker opens, b is tried first: either order is the same two routes failing.
        Array.from({ length: MAX_RECEIVES }, () => [
          'exhausted',
          2,
          expect.stringMatching(/^(a:503,b:503|b:503,a:503)$/),
        ]),
      );
    }
    expect(hooks.received).toEqual([]);

    // The incident ends; the operator looks first, then replays.
    openai.reset();
    const dry = await runCliCaptured(['replay', '--dry-run'], env);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('DRY RUN');
    for (const id of IDS) expect(dry.stdout).toContain(id);
    expect((await depth(queues.dlqUrl)).visible).toBe(2);

    const replay = await runCliCaptured(['replay'], env);
    expect(replay.stderr).toBe('');
    expect(replay.code).toBe(0);
    expect(replay.stdout).toMatch(/moved\s+2/);
    await waitFor(() => hooks.received.length === 2, 20_000);
    for (const id of IDS) {
      const done = await backend.store.get(id);
      expect(done?.status).toBe('succeeded');
      expect(done?.runs.map((r) => r.reason)).toEqual(['exhausted', 'exhausted', 'exhausted', 'success']);
      expect(done?.deliver?.deliveredAt).toBeTypeOf('number');
    }
    // Deliveries carry each job's public id, one delivery per job.
    const publicIds = await Promise.all(IDS.map(async (id) => (await backend.store.get(id))?.publicId));
    expect([...hooks.byJob().entries()].sort()).toEqual(publicIds.map((id) => [id, 1]).sort());
    expect(hooks.received.every((h) => h.validSignature)).toBe(true);

    // The same job is parked again (a duplicate message); replaying it runs and delivers nothing.
    const calls = upstreamRequests();
    await sqs.send(
      new SendMessageCommand({ QueueUrl: queues.dlqUrl, MessageBody: JSON.stringify({ jobId: IDS[0] }) }),
    );
    const again = await runCliCaptured(['replay'], env);
    expect(again.code).toBe(0);
    await waitFor(async () => {
      const d = await depth(queues.queueUrl);
      return d.visible + d.inFlight === 0;
    }, 10_000);
    expect(upstreamRequests()).toBe(calls);
    expect(hooks.received).toHaveLength(2);
  });

  it('delivers each job exactly once with a valid signature, even when the receiver fails first', async () => {
    await hooks.close();
    hooks = await startWebhookReceiver(SECRET, [500, 200]);
    const nightly = config.schedules?.nightly;
    if (nightly?.deliver) nightly.deliver.url = hooks.url;
    await fanOut();
    startWorker();
    await waitFor(async () => {
      const records = await Promise.all(IDS.map((id) => backend.store.get(id)));
      return records.every((r) => r?.deliver?.deliveredAt !== undefined);
    }, 20_000);
    const body = JSON.parse(hooks.received.at(-1)?.body ?? '{}');
    expect(body).toMatchObject({
      status: 'succeeded',
      pipeline: 'p',
      runs: [{ reason: 'success', route: 'a:200' }],
    });
    expect(body.result.choices[0].message.content).toBeTypeOf('string');
    expect(hooks.received.filter((h) => h.validSignature)).toHaveLength(3); // one 500, then one each
    expect([...hooks.byJob().values()].sort()).toEqual([1, 2]);
    // The job whose delivery failed ran once: the retry only delivered.
    expect(openai.requestsFor('model-a')).toHaveLength(2);
  });

  it('gives one job for two POST /v1/jobs with one Idempotency-Key, and shows it run', async () => {
    server = await startServer(local.app, { port: 0, host: '127.0.0.1' });
    const post = () =>
      fetch(`${server?.url}/v1/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'report-2026-11-29' },
        body: JSON.stringify({ model: 'p', messages: [{ role: 'user', content: 'hello' }], max_tokens: 50 }),
      });
    const [first, second] = [await post(), await post()];
    expect([first.status, second.status]).toEqual([202, 200]);
    const { id } = await first.json();
    expect((await second.json()).id).toBe(id);
    expect(await depth(queues.queueUrl)).toMatchObject({ visible: 1 });

    startWorker();
    await waitFor(async () => (await backend.store.get(id))?.status === 'succeeded', 10_000);
    const job = await (await fetch(`${server.url}/v1/jobs/${id}`)).json();
    expect(job).toMatchObject({
      id,
      status: 'succeeded',
      attempts: 1,
      runs: [{ route: 'a:200', reason: 'success' }],
    });
    expect(openai.requests).toHaveLength(1);
  });

  it('run-schedule enqueues on SQS and finds the firing enqueued the second time', async () => {
    const path = writeTempConfig(config);
    const first = await runCliCaptured(['run-schedule', 'nightly', '--config', path, '--time', TIME], env);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('2 enqueued, 0 already enqueued');
    const second = await runCliCaptured(['run-schedule', 'nightly', '--config', path, '--time', TIME], env);
    expect(second.stdout).toContain('0 enqueued, 2 already enqueued');
    expect(await depth(queues.queueUrl)).toMatchObject({ visible: 2 });
  });
});
