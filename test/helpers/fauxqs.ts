import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  DeleteMessageCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { buildApp } from 'fauxqs';

/** A fauxqs server started by `startFauxqs`. */
export interface RunningFauxqs {
  /** e.g. `http://127.0.0.1:40123`: pass as `endpoint` or `AWS_ENDPOINT_URL_SQS`. */
  endpoint: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * fauxqs 1.9.2 in this process, in memory, on 127.0.0.1 and a free port. Built with `buildApp`
 * rather than its `startFauxqs`, which always listens on 0.0.0.0. Its queue URLs name the host
 * `sqs.<region>.localhost:<port>`: give clients an explicit `endpoint` (see `sqsClientFor`) so
 * that the SDK does not try to follow that host.
 */
export async function startFauxqs(): Promise<RunningFauxqs> {
  const app = buildApp({ logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return { endpoint: `http://127.0.0.1:${port}`, port, stop: () => app.close() };
}

/** Dummy credentials and region for processes talking to fauxqs (it checks no signature). */
export const FAUXQS_ENV = {
  AWS_ACCESS_KEY_ID: 'fauxqs',
  AWS_SECRET_ACCESS_KEY: 'fauxqs',
  AWS_REGION: 'us-east-1',
} as const;

/** An SQS client with an explicit endpoint, so that queue URLs are never followed elsewhere. */
export function sqsClientFor(endpoint: string): SQSClient {
  return new SQSClient({
    endpoint,
    region: FAUXQS_ENV.AWS_REGION,
    credentials: {
      accessKeyId: FAUXQS_ENV.AWS_ACCESS_KEY_ID,
      secretAccessKey: FAUXQS_ENV.AWS_SECRET_ACCESS_KEY,
    },
  });
}

/** A move task as the proxy tracks it. */
interface FakeTask {
  handle: string;
  sourceArn: string;
  destinationArn: string;
  toMove: number;
  moved: number;
  polls: number;
}

/** A running `startMoveTaskProxy`. */
export interface MoveTaskProxy {
  /** Point clients here instead of at fauxqs. */
  endpoint: string;
  /** Every `StartMessageMoveTask` and `ListMessageMoveTasks` body received, oldest first. */
  readonly calls: { target: string; body: Record<string, unknown> }[];
  stop(): Promise<void>;
}

const readBody = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

const nameOf = (arn: string) => arn.split(':').at(-1) ?? '';

/**
 * SQS's redrive for the move-task path, which fauxqs lacks: a proxy on 127.0.0.1 that answers
 * `StartMessageMoveTask` (it moves the messages itself, through fauxqs, before answering) and
 * `ListMessageMoveTasks` (RUNNING on the first poll, COMPLETED after, as the real task reports),
 * and forwards every other request to fauxqs unchanged.
 */
export async function startMoveTaskProxy(fauxqs: RunningFauxqs): Promise<MoveTaskProxy> {
  const client = sqsClientFor(fauxqs.endpoint);
  const tasks: FakeTask[] = [];
  const calls: MoveTaskProxy['calls'] = [];
  const urlOf = async (arn: string) =>
    (await client.send(new GetQueueUrlCommand({ QueueName: nameOf(arn) }))).QueueUrl ?? '';

  async function move(task: FakeTask) {
    const from = await urlOf(task.sourceArn);
    const to = await urlOf(task.destinationArn);
    for (;;) {
      const { Messages = [] } = await client.send(
        new ReceiveMessageCommand({ QueueUrl: from, MaxNumberOfMessages: 10, VisibilityTimeout: 30 }),
      );
      if (Messages.length === 0) return;
      for (const m of Messages) {
        await client.send(new SendMessageCommand({ QueueUrl: to, MessageBody: m.Body ?? '' }));
        await client.send(new DeleteMessageCommand({ QueueUrl: from, ReceiptHandle: m.ReceiptHandle ?? '' }));
        task.toMove++;
      }
    }
  }

  async function answer(target: string, body: Record<string, unknown>): Promise<unknown> {
    calls.push({ target, body });
    if (target === 'StartMessageMoveTask') {
      const task: FakeTask = {
        handle: `task-${tasks.length + 1}`,
        sourceArn: String(body.SourceArn),
        destinationArn: String(body.DestinationArn),
        toMove: 0,
        moved: 0,
        polls: 0,
      };
      await move(task);
      tasks.unshift(task);
      return { TaskHandle: task.handle };
    }
    const results = tasks
      .filter((t) => t.sourceArn === body.SourceArn)
      .map((t) => {
        const running = t.polls++ === 0;
        if (!running) t.moved = t.toMove;
        return {
          ...(running ? { TaskHandle: t.handle } : {}),
          Status: running ? 'RUNNING' : 'COMPLETED',
          SourceArn: t.sourceArn,
          DestinationArn: t.destinationArn,
          ApproximateNumberOfMessagesMoved: t.moved,
          ApproximateNumberOfMessagesToMove: t.toMove,
          StartedTimestamp: Date.now(),
        };
      });
    return { Results: results };
  }

  function forward(req: IncomingMessage, body: Buffer, res: ServerResponse) {
    const upstream = request(
      { host: '127.0.0.1', port: fauxqs.port, method: req.method, path: req.url, headers: req.headers },
      (reply) => {
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    upstream.end(body);
  }

  const server = createServer((req, res) => {
    void readBody(req).then(async (body) => {
      const target = String(req.headers['x-amz-target'] ?? '').replace('AmazonSQS.', '');
      if (target !== 'StartMessageMoveTask' && target !== 'ListMessageMoveTasks')
        return forward(req, body, res);
      const json = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
      const reply = JSON.stringify(await answer(target, json));
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(reply);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    stop: () =>
      new Promise<void>((resolve) => {
        client.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
