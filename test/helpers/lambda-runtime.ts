import { PassThrough } from 'node:stream';
import type { Context } from 'aws-lambda';

/** What a streamed invocation produced: the metadata the handler declared, and the body. */
export interface StreamedInvocation {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  /** False when the handler never wrote the prelude: API Gateway would get no status line. */
  prelude: boolean;
}

type WriteChunk = (chunk: string | Uint8Array) => void;

interface RuntimeStream extends PassThrough {
  _onBeforeFirstWrite?: (write: WriteChunk) => void;
}

/** The 8 null bytes that end the JSON prelude of an HTTP integration response. */
const DELIMITER = Buffer.alloc(8);

/**
 * The two globals of the Node.js Lambda runtime that response streaming needs. Only the runtime
 * has them (there is no local server to talk to), so tests install this stand-in. It behaves as
 * the runtime interface client does: `HttpResponseStream.from` only arranges for the JSON prelude
 * and its 8 null bytes to be written before the first `write()`, so a handler that ends the stream
 * without ever writing sends no prelude at all.
 */
export function installLambdaStreamingRuntime(): void {
  (globalThis as Record<string, unknown>).awslambda = {
    streamifyResponse: <T>(handler: T) => handler,
    HttpResponseStream: {
      from(stream: RuntimeStream, prelude: unknown) {
        stream._onBeforeFirstWrite = (write) => {
          write(JSON.stringify(prelude));
          write(new Uint8Array(DELIMITER.length));
        };
        return stream;
      },
    },
  };
}

/** Makes `write()` run the runtime's first-write hook, as the runtime's response stream does. */
function runtimeStream(): RuntimeStream {
  const stream: RuntimeStream = new PassThrough();
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  let written = false;
  stream.write = ((...args: unknown[]) => {
    if (!written && typeof stream._onBeforeFirstWrite === 'function') {
      stream._onBeforeFirstWrite((chunk) => write(chunk));
    }
    written = true;
    return write(...args);
  }) as RuntimeStream['write'];
  return stream;
}

type StreamingHandler = (event: unknown, stream: PassThrough, context: Context) => Promise<void>;

/**
 * Invokes a streaming handler the way the runtime does, waits for the whole output and reads its
 * prelude. `onResponseEnd` runs when the handler ends the response stream: the moment the caller
 * has the whole answer (and, once the handler also returns, Lambda may freeze the container).
 */
export async function invokeStreaming(
  handler: unknown,
  event: unknown,
  {
    onResponseEnd,
    context = lambdaContext(),
  }: { onResponseEnd?: () => void /** Default: a fresh {@link lambdaContext}. */; context?: Context } = {},
): Promise<StreamedInvocation> {
  const stream = runtimeStream();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  if (onResponseEnd) stream.once('finish', onResponseEnd);
  await (handler as StreamingHandler)(event, stream, context);
  return parseIntegrationResponse(Buffer.concat(chunks));
}

/** Splits what a streaming handler wrote into its prelude (JSON, then 8 null bytes) and its body. */
export function parseIntegrationResponse(output: Buffer): StreamedInvocation {
  const end = output.indexOf(DELIMITER);
  if (end < 0) return { statusCode: 0, headers: {}, body: output.toString('utf8'), prelude: false };
  const metadata = JSON.parse(output.subarray(0, end).toString('utf8')) as {
    statusCode: number;
    headers?: Record<string, string>;
  };
  return {
    statusCode: metadata.statusCode,
    headers: metadata.headers ?? {},
    body: output.subarray(end + DELIMITER.length).toString('utf8'),
    prelude: true,
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
