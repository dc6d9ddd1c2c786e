import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One DynamoDB call as the proxy saw it: the operation, and when it arrived and was answered. */
export interface RecordedCall {
  /** e.g. `UpdateItem`, `Query` (from `x-amz-target`). */
  operation: string;
  /** Position in the shared event order when the request arrived. */
  arrived: number;
  /** Position in the shared event order when its answer was sent; undefined while in flight. */
  answered: number | undefined;
}

/** Operations that change the table. */
export const WRITE_OPERATIONS: ReadonlySet<string> = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
]);

export interface RecordingDynamoDbProxy {
  /** Point `AWS_ENDPOINT_URL_DYNAMODB` here. */
  url: string;
  /** Every call so far, oldest first (a live view). */
  readonly calls: readonly RecordedCall[];
  /** Takes the next position in the shared order, for events outside the proxy (a response that ended). */
  mark(): number;
  close(): Promise<void>;
}

/**
 * A loopback proxy in front of dynalite that records every DynamoDB call with its place in one
 * event order (a counter, not a clock, so two events are never "at the same time"). Tests put
 * other events (the end of an invocation's response) in the same order with `mark`.
 */
export async function startRecordingDynamoDbProxy(target: string): Promise<RecordingDynamoDbProxy> {
  const upstream = new URL(target);
  const calls: RecordedCall[] = [];
  let order = 0;
  const server = createServer((req, res) => {
    const call: RecordedCall = {
      operation:
        String(req.headers['x-amz-target'] ?? 'unknown')
          .split('.')
          .pop() ?? 'unknown',
      arrived: ++order,
      answered: undefined,
    };
    calls.push(call);
    const forward = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('end', () => {
          call.answered = ++order;
        });
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    mark: () => ++order,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
