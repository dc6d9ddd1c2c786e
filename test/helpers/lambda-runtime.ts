import { PassThrough } from 'node:stream';
import type { Context } from 'aws-lambda';

/** What a streamed invocation produced: the metadata the handler declared, and the body. */
export interface StreamedInvocation {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

interface MetadataStream extends PassThrough {
  metadata?: { statusCode: number; headers?: Record<string, string> };
}

/**
 * The two globals of the Node.js Lambda runtime that response streaming needs. Only the runtime
 * has them (there is no local server to talk to), so tests install this stand-in: it records the
 * status and headers the handler declares and collects the body.
 */
export function installLambdaStreamingRuntime(): void {
  (globalThis as Record<string, unknown>).awslambda = {
    streamifyResponse: <T>(handler: T) => handler,
    HttpResponseStream: {
      from(stream: MetadataStream, metadata: MetadataStream['metadata']) {
        stream.metadata = metadata;
        return stream;
      },
    },
  };
}

type StreamingHandler = (event: unknown, stream: PassThrough, context: Context) => Promise<void>;

/**
 * Invokes a streaming handler the way the runtime does, and waits for the whole body.
 * `onResponseEnd` runs when the handler ends the response stream: the moment the caller has the
 * whole answer (and, once the handler also returns, Lambda may freeze the container).
 */
export async function invokeStreaming(
  handler: unknown,
  event: unknown,
  { onResponseEnd }: { onResponseEnd?: () => void } = {},
): Promise<StreamedInvocation> {
  const stream: MetadataStream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  if (onResponseEnd) stream.once('finish', onResponseEnd);
  await (handler as StreamingHandler)(event, stream, lambdaContext());
  return {
    statusCode: stream.metadata?.statusCode ?? 0,
    headers: stream.metadata?.headers ?? {},
    body: Buffer.concat(chunks).toString('utf8'),
  };
}

let invocation = 0;

/** A Lambda context as the runtime passes it. */
export function lambdaContext(): Context {
  invocation += 1;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'Switchyard-ApiFunctionHandler',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:Switchyard-ApiFunctionHandler',
    memoryLimitInMB: '1024',
    awsRequestId: `c6af9ac6-7b61-11e6-9a41-${String(invocation).padStart(12, '0')}`,
    logGroupName: '/aws/lambda/Switchyard-ApiFunctionHandler',
    logStreamName: '2026/11/29/[$LATEST]abcdef',
    getRemainingTimeInMillis: () => 30_000,
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}
