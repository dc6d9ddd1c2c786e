import {
  GetQueueAttributesCommand,
  type QueueAttributeName,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../lambda/core/errors.js';
import {
  dlqOf,
  queueArnOf,
  replayAddressesOf,
  replayDeadLetters,
} from '../../../lambda/jobs/aws/dlq-replay.js';
import {
  ensureJobQueues,
  type JobQueueAddresses,
  jobQueueSettings,
} from '../../../lambda/jobs/aws/ensure-job-queues.js';
import { isUnsupportedOperation } from '../../../lambda/jobs/aws/sqs-errors.js';
import {
  createSqsJobQueue,
  deleteJob,
  parseJobMessage,
  receiveJobs,
  releaseJob,
} from '../../../lambda/jobs/aws/sqs-job-queue.js';
import { type RunningFauxqs, sqsClientFor, startFauxqs, startMoveTaskProxy } from '../../helpers/fauxqs.js';

let fauxqs: RunningFauxqs;
let client: SQSClient;
beforeAll(async () => {
  fauxqs = await startFauxqs();
  client = sqsClientFor(fauxqs.endpoint);
});
afterAll(async () => {
  client.destroy();
  await fauxqs.stop();
});

let queues = 0;
/** A fresh queue pair: 1 s visibility, two receives before the DLQ. */
const freshQueues = (overrides: { visibilityTimeoutSeconds?: number; maxReceiveCount?: number } = {}) =>
  ensureJobQueues({
    client,
    endpoint: fauxqs.endpoint,
    queueName: `jobs-${process.pid}-${++queues}`,
    visibilityTimeoutSeconds: 1,
    maxReceiveCount: 2,
    ...overrides,
  });

async function attributes(queueUrl: string, names: string[]) {
  const { Attributes = {} } = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: names as QueueAttributeName[] }),
  );
  return Attributes;
}

const visibleCount = async (queueUrl: string) =>
  Number((await attributes(queueUrl, ['ApproximateNumberOfMessages'])).ApproximateNumberOfMessages);

const sendRaw = (queueUrl: string, body: string) =>
  client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Receives and releases a message until fauxqs parks it: receive number maxReceiveCount + 1 moves it. */
async function exhaustReceives(q: JobQueueAddresses, maxReceiveCount: number) {
  const counts: number[] = [];
  for (let i = 0; i < maxReceiveCount; i++) {
    const [got] = await receiveJobs({ client, queueUrl: q.queueUrl, max: 1 });
    if (!got) throw new Error(`receive ${i + 1} found nothing`);
    counts.push(got.receiveCount);
    await releaseJob({ client, queueUrl: q.queueUrl, receiptHandle: got.receiptHandle });
  }
  return counts;
}

describe('job queues on a local endpoint', () => {
  it('creates the queue and its DLQ with the redrive policy and the allow policy, and finds them again', async () => {
    const q = await freshQueues();
    expect(q.dlqArn).toBe(q.queueArn.replace(/$/, '-dlq'));
    const source = await attributes(q.queueUrl, ['RedrivePolicy', 'VisibilityTimeout']);
    expect(JSON.parse(source.RedrivePolicy ?? '{}')).toEqual({
      deadLetterTargetArn: q.dlqArn,
      maxReceiveCount: 2,
    });
    expect(source.VisibilityTimeout).toBe('1');
    const dlq = await attributes(q.dlqUrl, ['RedriveAllowPolicy', 'MessageRetentionPeriod']);
    expect(JSON.parse(dlq.RedriveAllowPolicy ?? '{}')).toEqual({
      redrivePermission: 'byQueue',
      sourceQueueArns: [q.queueArn],
    });
    expect(dlq.MessageRetentionPeriod).toBe('1209600');
    const name = q.queueArn.split(':').at(-1);
    const again = await ensureJobQueues({
      client,
      endpoint: fauxqs.endpoint,
      queueName: name,
      visibilityTimeoutSeconds: 2,
      maxReceiveCount: 2,
    });
    expect(again).toEqual(q);
    expect((await attributes(q.queueUrl, ['VisibilityTimeout'])).VisibilityTimeout).toBe('2');
  });

  it('refuses to create queues on AWS itself', async () => {
    await expect(
      ensureJobQueues({ client, endpoint: undefined, queueName: 'never', maxReceiveCount: 3 }),
    ).rejects.toBeInstanceOf(ConfigError);
    await expect(
      ensureJobQueues({
        client,
        endpoint: 'https://sqs.eu-west-1.amazonaws.com',
        queueName: 'never',
        maxReceiveCount: 3,
      }),
    ).rejects.toThrow(/AWS_ENDPOINT_URL_SQS/);
  });

  it('reads the queue name and endpoint from the environment and names a bad value', () => {
    expect(jobQueueSettings({ AWS_ENDPOINT_URL_SQS: fauxqs.endpoint })).toMatchObject({
      queueName: 'switchyard-jobs',
      endpoint: fauxqs.endpoint,
      local: true,
      region: 'us-east-1',
    });
    expect(jobQueueSettings({ SWITCHYARD_JOB_QUEUE: 'nightly' })).toMatchObject({
      queueName: 'nightly',
      local: false,
    });
    expect(() => jobQueueSettings({ SWITCHYARD_JOB_QUEUE: 'bad name' })).toThrow(/SWITCHYARD_JOB_QUEUE/);
  });
});

describe('job messages on SQS', () => {
  it('sends the job id as JSON; receive hands back the id, a receipt handle and the receive count', async () => {
    const q = await freshQueues();
    await createSqsJobQueue({ client, queueUrl: q.queueUrl }).send(
      { jobId: 'nightly:acct-1:t0' },
      { delaySeconds: 0 },
    );
    const [got] = await receiveJobs({ client, queueUrl: q.queueUrl });
    expect(got).toMatchObject({ kind: 'job', jobId: 'nightly:acct-1:t0', receiveCount: 1 });
    await deleteJob({ client, queueUrl: q.queueUrl, receiptHandle: got?.receiptHandle ?? '' });
    await sleep(1_100);
    expect(await receiveJobs({ client, queueUrl: q.queueUrl })).toEqual([]);
  });

  it('keeps a delayed message out of sight until its delay has passed', async () => {
    const q = await freshQueues();
    const sentAt = Date.now();
    await createSqsJobQueue({ client, queueUrl: q.queueUrl }).send({ jobId: 'later' }, { delaySeconds: 2 });
    expect(await receiveJobs({ client, queueUrl: q.queueUrl })).toEqual([]);
    expect(
      (await attributes(q.queueUrl, ['ApproximateNumberOfMessagesDelayed']))
        .ApproximateNumberOfMessagesDelayed,
    ).toBe('1');
    await sleep(Math.max(0, sentAt + 1_500 - Date.now()));
    expect(await receiveJobs({ client, queueUrl: q.queueUrl })).toEqual([]);
    // Long polls of at most 1 s each, bounded to 5 s in all.
    let got: Awaited<ReturnType<typeof receiveJobs>> = [];
    while (got.length === 0 && Date.now() - sentAt < 5_000) {
      got = await receiveJobs({ client, queueUrl: q.queueUrl, waitSeconds: 1 });
    }
    expect(got.map((m) => m.kind === 'job' && m.jobId)).toEqual(['later']);
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(2_000);
  });

  it('reports a malformed body instead of throwing, with the reason', async () => {
    const q = await freshQueues();
    await sendRaw(q.queueUrl, 'not json');
    await sendRaw(q.queueUrl, '{"job":"x"}');
    const got = await receiveJobs({ client, queueUrl: q.queueUrl });
    expect(got.map((m) => (m.kind === 'malformed' ? m.reason : m.kind)).sort()).toEqual([
      'body is not JSON',
      'jobId: Invalid input: expected string, received undefined',
    ]);
    expect(parseJobMessage('{"jobId":""}')).toMatchObject({ ok: false });
  });

  it('moves a message received maxReceiveCount times without a delete to the DLQ (fauxqs enforces the policy)', async () => {
    const q = await freshQueues({ maxReceiveCount: 2 });
    await createSqsJobQueue({ client, queueUrl: q.queueUrl }).send({ jobId: 'doomed' }, { delaySeconds: 0 });
    expect(await exhaustReceives(q, 2)).toEqual([1, 2]);
    // The third receive finds nothing: the message went to the DLQ instead of being delivered.
    expect(await receiveJobs({ client, queueUrl: q.queueUrl })).toEqual([]);
    expect(await visibleCount(q.dlqUrl)).toBe(1);
    const { Messages = [] } = await client.send(
      new ReceiveMessageCommand({ QueueUrl: q.dlqUrl, VisibilityTimeout: 0 }),
    );
    expect(Messages.map((m) => m.Body)).toEqual(['{"jobId":"doomed"}']);
  });
});

describe('dead-letter replay', () => {
  it('finds the DLQ from the source queue alone', async () => {
    const q = await freshQueues();
    expect(await dlqOf(client, q.queueUrl)).toEqual({
      dlqArn: q.dlqArn,
      dlqUrl: q.dlqUrl,
      maxReceiveCount: 2,
    });
    expect(await dlqOf(client, q.dlqUrl)).toBeUndefined();
    expect(await queueArnOf(client, q.queueUrl)).toBe(q.queueArn);
    expect(await replayAddressesOf(client, q.queueUrl)).toEqual(q);
  });

  it('moves a parked job back by receive → send → delete when the endpoint lacks StartMessageMoveTask', async () => {
    const q = await freshQueues();
    await createSqsJobQueue({ client, queueUrl: q.queueUrl }).send({ jobId: 'parked' }, { delaySeconds: 0 });
    await exhaustReceives(q, 2);
    expect(await receiveJobs({ client, queueUrl: q.queueUrl })).toEqual([]);
    const progress: number[] = [];
    const summary = await replayDeadLetters({
      client,
      dlqArn: q.dlqArn,
      dlqUrl: q.dlqUrl,
      sourceArn: q.queueArn,
      sourceUrl: q.queueUrl,
      onProgress: (p) => progress.push(p.moved),
    });
    expect(summary).toMatchObject({
      method: 'receive-send-delete',
      moved: 1,
      failed: 0,
      jobIds: ['parked'],
      waiting: 1,
    });
    expect(progress).toEqual([1]);
    expect(await visibleCount(q.dlqUrl)).toBe(0);
    // Back on the source as a new message, so it gets the full maxReceiveCount again.
    expect(await receiveJobs({ client, queueUrl: q.queueUrl })).toMatchObject([
      { jobId: 'parked', receiveCount: 1 },
    ]);
  });

  it('moves nothing in a dry run, but counts the DLQ and peeks the job ids', async () => {
    const q = await freshQueues();
    for (const id of ['a', 'b', 'c']) await sendRaw(q.dlqUrl, JSON.stringify({ jobId: id }));
    await sendRaw(q.dlqUrl, 'garbage');
    const summary = await replayDeadLetters({ client, ...replayArgs(q), dryRun: true });
    expect(summary).toMatchObject({
      method: 'receive-send-delete',
      dryRun: true,
      moved: 0,
      waiting: 4,
      malformed: 1,
    });
    expect(summary.jobIds.sort()).toEqual(['a', 'b', 'c']);
    // Everything is still in the DLQ and visible at once; nothing reached the source.
    expect(await visibleCount(q.dlqUrl)).toBe(4);
    expect(await visibleCount(q.queueUrl)).toBe(0);
  });

  it('stops at maxMessages, in batches of ten', async () => {
    const q = await freshQueues();
    for (let i = 0; i < 15; i++) await sendRaw(q.dlqUrl, JSON.stringify({ jobId: `j${i}` }));
    const batches: number[] = [];
    const summary = await replayDeadLetters({
      client,
      ...replayArgs(q),
      maxMessages: 12,
      onProgress: (p) => batches.push(p.moved),
    });
    expect(summary).toMatchObject({ method: 'receive-send-delete', moved: 12, failed: 0 });
    expect(new Set(summary.jobIds).size).toBe(12);
    expect(batches).toEqual([10, 12]);
    expect(await visibleCount(q.dlqUrl)).toBe(3);
    expect(await visibleCount(q.queueUrl)).toBe(12);
  });

  it('uses StartMessageMoveTask where the endpoint has it, and follows the task to its end', async () => {
    const q = await freshQueues();
    for (const id of ['x', 'y']) await sendRaw(q.dlqUrl, JSON.stringify({ jobId: id }));
    const proxy = await startMoveTaskProxy(fauxqs);
    const viaProxy = sqsClientFor(proxy.endpoint);
    try {
      const statuses: (number | undefined)[] = [];
      const dry = await replayDeadLetters({ client: viaProxy, ...replayArgs(q), dryRun: true });
      expect(dry).toMatchObject({ method: 'move-task', moved: 0, waiting: 2 });
      const summary = await replayDeadLetters({
        client: viaProxy,
        ...replayArgs(q),
        pollMs: 10,
        onProgress: (p) => statuses.push(p.moved),
      });
      expect(summary).toMatchObject({
        method: 'move-task',
        moved: 2,
        failed: 0,
        taskStatus: 'COMPLETED',
        jobIds: [],
      });
      expect(statuses).toEqual([0, 2]);
      expect(proxy.calls.find((c) => c.target === 'StartMessageMoveTask')?.body).toEqual({
        SourceArn: q.dlqArn,
        DestinationArn: q.queueArn,
      });
      expect(await visibleCount(q.queueUrl)).toBe(2);
    } finally {
      viaProxy.destroy();
      await proxy.stop();
    }
  });
});

const replayArgs = (q: JobQueueAddresses) => ({
  dlqArn: q.dlqArn,
  dlqUrl: q.dlqUrl,
  sourceArn: q.queueArn,
  sourceUrl: q.queueUrl,
});

describe('unsupported operations', () => {
  const named = (name: string, status = 400) =>
    Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });
  it.each([
    ['InvalidAction', 400, true],
    ['UnsupportedOperation', 400, true],
    ['AWS.SimpleQueueService.UnsupportedOperation', 400, true],
    ['UnknownOperationException', 400, true],
    ['InternalFailure', 501, true],
    ['AccessDeniedException', 403, false],
    ['ResourceNotFoundException', 400, false],
  ])('%s (HTTP %i) → %s', (name, status, expected) => {
    expect(isUnsupportedOperation(named(name, status))).toBe(expected);
  });
});
