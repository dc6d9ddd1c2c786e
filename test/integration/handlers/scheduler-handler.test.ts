/**
 * The scheduler Lambda's handler as deployed (its bundled config, its environment, middy and
 * Powertools) against dynalite and fauxqs: a firing delivered twice fans out once, whether it came
 * from EventBridge Scheduler (`{schedule, scheduledTime}`) or from an EventBridge rule of a stack
 * deployed before the switch (`{schedule, time}`).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { interceptLocalhostDns } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureJobTable } from '../../../lambda/jobs/aws/create-job-table.js';
import { ensureJobQueues } from '../../../lambda/jobs/aws/ensure-job-queues.js';
import { type CapturedOutput, captureProcessOutput } from '../../helpers/capture-output.js';
import { writeTempConfig } from '../../helpers/cli-harness.js';
import { DYNALITE_ENV, type RunningDynalite, startDynalite } from '../../helpers/dynalite.js';
import { type RunningFauxqs, sqsClientFor, startFauxqs } from '../../helpers/fauxqs.js';
import { lambdaContext } from '../../helpers/lambda-runtime.js';

type Fired = { enqueued: unknown[]; duplicates: string[]; schedule: string; time: string };
type Handler = (event: unknown, context: unknown) => Promise<Fired>;

const TABLE = `scheduler-jobs-${process.pid}`;
let dynalite: RunningDynalite;
let fauxqs: RunningFauxqs;
let sqs: SQSClient;
let queueUrl: string;
let handler: Handler;
let output: CapturedOutput;
let restoreDns = () => {};
const savedEnv = { ...process.env };

beforeAll(async () => {
  [dynalite, fauxqs] = await Promise.all([startDynalite(), startFauxqs()]);
  sqs = sqsClientFor(fauxqs.endpoint);
  const dynamo = new DynamoDBClient({
    endpoint: dynalite.endpoint,
    region: DYNALITE_ENV.AWS_REGION,
    credentials: { accessKeyId: 'dynalite', secretAccessKey: 'dynalite' },
  });
  await ensureJobTable(dynamo, TABLE);
  dynamo.destroy();
  ({ queueUrl } = await ensureJobQueues({
    client: sqs,
    endpoint: fauxqs.endpoint,
    queueName: `scheduler-${process.pid}`,
    maxReceiveCount: 3,
  }));
  // fauxqs's queue URLs name the host sqs.<region>.localhost, and the Lambda's own client follows a
  // queue URL's host, as in AWS: resolve *.localhost to this machine, as fauxqs suggests for tests.
  restoreDns = interceptLocalhostDns();
  // …and the SDK warns (console.warn) on every send that the URL's host is not AWS's.
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  const job = (id: string) => ({ id, request: { messages: [{ role: 'user', content: `digest ${id}` }] } });
  const configPath = writeTempConfig({
    providers: { p: { type: 'openai', baseURL: 'https://api.example.test/v1', apiKeySecret: '/keys/p' } },
    models: { m: { provider: 'p', model: 'raw' } },
    pipelines: { digest: { chain: 'm' } },
    schedules: {
      nightly: {
        expression: 'cron(0 3 * * ? *)',
        timezone: 'Europe/Berlin',
        flexibleWindowMinutes: 15,
        pipeline: 'digest',
        jobs: [job('acct-1'), job('acct-2')],
      },
    },
  });
  Object.assign(process.env, {
    ...DYNALITE_ENV,
    AWS_ENDPOINT_URL_DYNAMODB: dynalite.endpoint,
    SWITCHYARD_CONFIG: configPath,
    SWITCHYARD_JOBS_TABLE: TABLE,
    SWITCHYARD_JOB_QUEUE_URL: queueUrl,
    POWERTOOLS_SERVICE_NAME: 'switchyard',
  });
  output = captureProcessOutput();
  ({ handler } = (await import('../../../lambda/handlers/scheduler.js')) as unknown as { handler: Handler });
});

afterAll(async () => {
  output.restore();
  restoreDns();
  vi.restoreAllMocks();
  process.env = savedEnv;
  sqs.destroy();
  await Promise.all([dynalite.stop(), fauxqs.stop()]);
});

async function messagesOnQueue(): Promise<number> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesDelayed'],
    }),
  );
  return (
    Number(Attributes?.ApproximateNumberOfMessages ?? 0) +
    Number(Attributes?.ApproximateNumberOfMessagesDelayed ?? 0)
  );
}

/** The "schedule fanned out" log lines the handler wrote, parsed. */
function fanOutLines(): Record<string, unknown>[] {
  return output
    .text()
    .split('\n')
    .filter((line) => line.includes('"schedule fanned out"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('the scheduler Lambda', () => {
  it('fans a Scheduler firing delivered twice out once, keyed on its scheduled time', async () => {
    const before = await messagesOnQueue();
    const event = (attempt: string) => ({
      schedule: 'nightly',
      scheduledTime: '2026-11-29T02:00:00Z',
      executionId: 'd32c5kddcf5bb8c3',
      attempt,
    });
    const first = await handler(event('1'), lambdaContext());
    const second = await handler(event('2'), lambdaContext());
    expect(first.enqueued).toHaveLength(2);
    expect(first.duplicates).toEqual([]);
    expect(second.enqueued).toEqual([]);
    expect(second.duplicates.sort()).toEqual([
      'nightly:acct-1:2026-11-29T02:00:00Z',
      'nightly:acct-2:2026-11-29T02:00:00Z',
    ]);
    expect((await messagesOnQueue()) - before).toBe(2);
    expect(fanOutLines().slice(-2)).toEqual([
      expect.objectContaining({
        source: 'scheduler',
        executionId: 'd32c5kddcf5bb8c3',
        attempt: '1',
        enqueued: 2,
      }),
      expect.objectContaining({ source: 'scheduler', attempt: '2', enqueued: 0, duplicates: 2 }),
    ]);
  });

  it('still serves the old rule event, twice delivered, with one fan-out', async () => {
    const before = await messagesOnQueue();
    const event = { schedule: 'nightly', time: '2026-11-30T02:00:00Z' };
    const first = await handler(event, lambdaContext());
    const second = await handler(event, lambdaContext());
    expect([first.enqueued.length, second.enqueued.length, second.duplicates.length]).toEqual([2, 0, 2]);
    expect((await messagesOnQueue()) - before).toBe(2);
    expect(fanOutLines().at(-1)).toMatchObject({ source: 'rule', time: '2026-11-30T02:00:00Z' });
  });

  it('makes one set of jobs of a firing that the old rule and the new schedule both deliver', async () => {
    const before = await messagesOnQueue();
    const fromRule = await handler({ schedule: 'nightly', time: '2026-12-01T02:00:00Z' }, lambdaContext());
    const fromScheduler = await handler(
      { schedule: 'nightly', scheduledTime: '2026-12-01T02:00:00.000Z' },
      lambdaContext(),
    );
    expect(fromRule.enqueued).toHaveLength(2);
    expect(fromScheduler.enqueued).toEqual([]);
    expect(fromScheduler.duplicates).toHaveLength(2);
    expect((await messagesOnQueue()) - before).toBe(2);
  });

  it.each([
    [{ schedule: 'nightly' }, /not a schedule event: scheduledTime: .*expected \{schedule, scheduledTime\}/],
    [{ schedule: 'nightly', scheduledTime: 'tomorrow' }, /not a schedule event: scheduledTime/],
    [{ schedule: 'weekly', scheduledTime: '2026-11-29T02:00:00Z' }, /schedules\.weekly: no such schedule/],
  ])('refuses %j without sending anything', async (event, expected) => {
    const before = await messagesOnQueue();
    await expect(handler(event, lambdaContext())).rejects.toThrow(expected);
    expect(await messagesOnQueue()).toBe(before);
  });
});
