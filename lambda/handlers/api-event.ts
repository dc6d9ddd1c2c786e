import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { errorBody } from '../http/openai-errors.js';

/** What a streaming Lambda returns: middy writes the status and headers, then pipes the body. */
export interface StreamedResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: ReadableStream<Uint8Array> | string;
}

/** Anything that answers a web `Request`: the Hono app. */
export interface FetchApp {
  fetch(request: Request): Response | Promise<Response>;
}

/**
 * A REST API (payload format 1.0) proxy event as a web `Request`. Multi-value headers and query
 * strings win over the single-value maps, which keep only the last value.
 */
export function requestFromEvent(event: APIGatewayProxyEvent, signal?: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, values] of Object.entries(event.multiValueHeaders ?? {})) {
    for (const value of values ?? []) headers.append(name, value);
  }
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined && !headers.has(name)) headers.set(name, value);
  }
  const query = new URLSearchParams();
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    for (const value of values ?? []) query.append(name, value);
  }
  for (const [name, value] of Object.entries(event.queryStringParameters ?? {})) {
    if (value !== undefined && !query.has(name)) query.set(name, value);
  }
  const host = headers.get('host') ?? event.requestContext?.domainName ?? 'lambda.local';
  const search = query.toString();
  const url = `https://${host}${event.path}${search ? `?${search}` : ''}`;
  const hasBody =
    event.body !== null && event.body !== undefined && !['GET', 'HEAD'].includes(event.httpMethod);
  const body = hasBody
    ? event.isBase64Encoded
      ? Buffer.from(event.body ?? '', 'base64')
      : (event.body ?? '')
    : undefined;
  return new Request(url, { method: event.httpMethod, headers, body, signal });
}

/**
 * Runs one API Gateway event through the app; the body stays a stream (SSE reaches the caller
 * chunk by chunk). `signal` becomes the request's: when it aborts (the caller went away) the
 * upstream call is aborted and no new attempt starts.
 */
export async function handleApiEvent(
  event: APIGatewayProxyEvent,
  app: FetchApp,
  signal?: AbortSignal,
): Promise<StreamedResponse> {
  const response = await app.fetch(requestFromEvent(event, signal));
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { statusCode: response.status, headers, body: response.body ?? '' };
}

/** 503 in the OpenAI envelope when the gateway could not start (the next request tries again). */
export function startFailure(): StreamedResponse {
  return {
    statusCode: 503,
    headers: { 'content-type': 'application/json', 'retry-after': '1' },
    body: JSON.stringify(
      errorBody('the gateway is starting or could not start; try again', 'api_error', 'service_unavailable'),
    ),
  };
}

/**
 * Aborts when the Lambda response stream closes before the answer was completely written: API
 * Gateway dropped the connection because the caller went away (or a timeout ended it).
 */
export function callerGoneSignal(responseStream: Writable): AbortSignal {
  const gone = new AbortController();
  responseStream.once('close', () => {
    if (!responseStream.writableFinished) gone.abort(new Error('the response stream closed early'));
  });
  return gone.signal;
}

/**
 * Writes a response into the Lambda response stream the way API Gateway's streaming proxy reads
 * it: status and headers first (`HttpResponseStream.from`, written even when there is no body),
 * then the body. Once the caller has gone there is nobody to write to, so a closed stream ends the
 * write quietly.
 */
export async function writeStreamedResponse(
  response: StreamedResponse,
  responseStream: Writable,
  callerGone: AbortSignal,
): Promise<void> {
  if (callerGone.aborted) return;
  const { body, ...metadata } = response;
  const out = awslambda.HttpResponseStream.from(responseStream, metadata);
  // The runtime writes the prelude (status and headers) only before the first write(): an answer
  // with no body (HEAD, 204) would end the stream without one and API Gateway would get no status
  // line. An empty first write sends the prelude for every answer, at once.
  out.write(new Uint8Array(0));
  const source =
    typeof body === 'string'
      ? Readable.from(body === '' ? [] : [body])
      : Readable.fromWeb(body as NodeReadableStream<Uint8Array>);
  try {
    await pipeline(source, out);
  } catch (error) {
    if (!callerGone.aborted) throw error;
  }
}
