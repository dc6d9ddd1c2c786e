import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { RetryErrorInfo } from '@smithy/types';
import { afterEach, describe, expect, it } from 'vitest';
import { createBreakerDynamoDbClient, STORE_CALL_LIMITS } from '../../../lambda/aws/dynamodb-client.js';
import { isSafeToResend } from '../../../lambda/aws/store-retry-strategy.js';

/** A DynamoDB stand-in on loopback that counts the calls it receives and answers by script. */
type Answer = 'ok' | 'throttle' | 'server-error' | 'hang' | 'reset';

async function startCountingTable(
  answers: Answer[],
): Promise<{ endpoint: string; calls: () => number; stop: () => Promise<void> }> {
  let calls = 0;
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      const answer = answers[Math.min(calls, answers.length - 1)];
      calls++;
      const json = (status: number, body: object) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify(body));
      };
      if (answer === 'ok') json(200, { Attributes: { n: { N: '1' } } });
      else if (answer === 'throttle')
        json(400, { __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException', message: 'slow down' });
      else if (answer === 'server-error')
        json(500, { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'oops' });
      else if (answer === 'reset') req.socket.destroy();
      else hanging.push(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls: () => calls,
    stop: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const addOne = new UpdateItemCommand({
  TableName: 'breakers',
  Key: { pipeline: { S: 'p' }, sk: { S: 'a' } },
  UpdateExpression: 'ADD n :one',
  ExpressionAttributeValues: { ':one': { N: '1' } },
});

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

async function sendThrough(answers: Answer[]) {
  const table = await startCountingTable(answers);
  stops.push(table.stop);
  const client = createBreakerDynamoDbClient({
    endpoint: table.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
  });
  const outcome = await client.send(addOne).then(
    () => 'ok' as const,
    (error: Error) => error.name,
  );
  client.destroy();
  return { outcome, calls: table.calls() };
}

describe('breaker store client: a counted update is never sent twice when it may have landed', () => {
  it('sends a timed-out update once and reports the timeout', async () => {
    expect(await sendThrough(['hang', 'ok'])).toEqual({ outcome: 'TimeoutError', calls: 1 });
  });

  it('sends once when the connection breaks after the update was sent', async () => {
    const { outcome, calls } = await sendThrough(['reset', 'ok']);
    expect(outcome).not.toBe('ok');
    expect(calls).toBe(1);
  });

  it('sends once when DynamoDB answers 500 (the update may or may not have been applied)', async () => {
    expect(await sendThrough(['server-error', 'ok'])).toEqual({ outcome: 'InternalServerError', calls: 1 });
  });

  it('resends a throttled update once: throttling means it was not applied', async () => {
    expect(await sendThrough(['throttle', 'ok'])).toEqual({ outcome: 'ok', calls: 2 });
  });

  it(`stops after ${STORE_CALL_LIMITS.maxAttempts} calls when throttling goes on`, async () => {
    expect(await sendThrough(['throttle'])).toEqual({
      outcome: 'ThrottlingException',
      calls: STORE_CALL_LIMITS.maxAttempts,
    });
  });
});

/** An error as the SDK hands it to the retry strategy. */
function sdkError(message: string, props: { name?: string; code?: string }): RetryErrorInfo['error'] {
  return Object.assign(new Error(message), props, { $metadata: {} }) as RetryErrorInfo['error'];
}

describe('isSafeToResend', () => {
  const timeout = (message: string) => ({
    errorType: 'TRANSIENT' as const,
    error: sdkError(message, { name: 'TimeoutError' }),
  });

  it('resends when no connection was ever made', () => {
    expect(isSafeToResend(timeout('the request socket did not establish a connection with the server'))).toBe(
      true,
    );
    const refused = sdkError('connect ECONNREFUSED', { code: 'ECONNREFUSED' });
    expect(isSafeToResend({ errorType: 'TRANSIENT', error: refused })).toBe(true);
  });

  it('does not resend after a request or socket timeout, a reset, a 5xx, or an unknown error', () => {
    expect(isSafeToResend(timeout('a request has exceeded the configured 1000 ms requestTimeout'))).toBe(
      false,
    );
    expect(isSafeToResend(timeout('the request socket timed out after 1000 ms of inactivity'))).toBe(false);
    const reset = sdkError('socket hang up', { code: 'ECONNRESET' });
    expect(isSafeToResend({ errorType: 'TRANSIENT', error: reset })).toBe(false);
    expect(isSafeToResend({ errorType: 'SERVER_ERROR' })).toBe(false);
  });

  it('resends on throttling', () => {
    expect(isSafeToResend({ errorType: 'THROTTLING' })).toBe(true);
  });
});
