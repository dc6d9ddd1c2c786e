import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An error the fake answers in the AWS JSON shape: `{ __type, message }` with `status`. */
export class AwsJsonFault extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/** One request a fake answered: the operation (`GetParameter`…) and its JSON body. */
export interface AwsJsonRequest {
  target: string;
  body: Record<string, unknown>;
}

/** An error to answer instead of the operation; status defaults to 400, message to the type. */
export interface ScriptedFault {
  type: string;
  status?: number;
  message?: string;
}

/** One operation: the request body and the caller's access key id in, the answer out. */
export type AwsJsonOperation = (body: Record<string, unknown>, accessKeyId: string) => unknown;

/** What every fake AWS JSON server offers its tests. */
export interface AwsJsonServer {
  url: string;
  /** Every request, oldest first. */
  readonly requests: AwsJsonRequest[];
  /** The next `times` requests for `target` fail with the given error. */
  fail(target: string, error: ScriptedFault, times?: number): void;
  /**
   * Answers at most `perSecond` requests a second (every operation together, as an account-wide
   * quota does; a token bucket holding one second's worth) and `ThrottlingException` to the rest;
   * undefined lifts the limit. `now` is the clock, in ms. Throttled requests are counted by `throttledCount`.
   */
  limitRate(perSecond: number | undefined, now?: () => number): void;
  /** Requests refused by `limitRate` so far. */
  throttledCount(): number;
  close(): Promise<void>;
}

/**
 * A loopback server speaking the AWS JSON 1.1 protocol: the operation comes from
 * `x-amz-target: <targetPrefix>.<Op>`, the answer is JSON, a thrown `AwsJsonFault` is answered as
 * such and anything else as `internalErrorType` with status 500.
 */
export async function startAwsJsonServer(service: {
  /** For the unknown-operation message, e.g. `SSM`. */
  name: string;
  targetPrefix: string;
  internalErrorType: string;
  operations: Record<string, AwsJsonOperation>;
}): Promise<AwsJsonServer> {
  const requests: AwsJsonRequest[] = [];
  const failures = new Map<string, Required<ScriptedFault> & { times: number }>();
  let bucket: { perSecond: number; tokens: number; at: number; now: () => number } | undefined;
  let throttled = 0;

  /** Takes a token from the rate limit's bucket; false when it is empty. */
  const admitted = () => {
    if (!bucket) return true;
    const t = bucket.now();
    bucket.tokens = Math.min(bucket.perSecond, bucket.tokens + ((t - bucket.at) * bucket.perSecond) / 1000);
    bucket.at = t;
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  };

  const answer = (target: string, body: Record<string, unknown>, accessKeyId: string) => {
    if (!admitted()) {
      throttled += 1;
      throw new AwsJsonFault('ThrottlingException', 'Rate exceeded');
    }
    const failure = failures.get(target);
    if (failure && failure.times > 0) {
      failure.times -= 1;
      throw new AwsJsonFault(failure.type, failure.message, failure.status);
    }
    const operation = service.operations[target];
    if (!operation)
      throw new AwsJsonFault('UnknownOperationException', `fake ${service.name} does not do '${target}'`);
    return operation(body, accessKeyId);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const header = String(req.headers['x-amz-target'] ?? '');
    const prefix = `${service.targetPrefix}.`;
    const target = header.startsWith(prefix) ? header.slice(prefix.length) : header;
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
    requests.push({ target, body });
    const accessKeyId =
      /Credential=([^/]+)\//.exec(String(req.headers.authorization ?? ''))?.[1] ?? 'anonymous';
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(payload));
    };
    try {
      send(200, answer(target, body, accessKeyId));
    } catch (error) {
      const fault =
        error instanceof AwsJsonFault
          ? error
          : new AwsJsonFault(service.internalErrorType, String(error), 500);
      send(fault.status, { __type: fault.type, message: fault.message });
    }
  };

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    throttledCount: () => throttled,
    limitRate(perSecond, now = Date.now) {
      bucket = perSecond === undefined ? undefined : { perSecond, tokens: perSecond, at: now(), now };
    },
    fail: (target, e, times = 1) =>
      failures.set(target, { type: e.type, status: e.status ?? 400, message: e.message ?? e.type, times }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
