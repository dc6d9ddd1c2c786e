/**
 * Routing one admitted chat request, whichever door it came through: the gateway's plain or
 * streamed call, the evidence headers, and the terminal error of a failed request. The door
 * renders the answer (`render`, `format`) in its own shape.
 */
import type { ChatRequest, ChatResult } from '../../core/chat/chat-model.js';
import type { Gateway } from '../../core/gateway/gateway.js';
import type { Target } from '../../core/gateway/target.js';
import type { ChainVariant } from '../../core/ledger/ledger-entry.js';
import type { CommittedStream } from '../../core/router/route-chat.js';
import type { RouteFailure, RouteSuccess } from '../../core/router/route-types.js';
import { terminalError } from '../../core/router/terminal-error.js';
import { errorBody, errorResponse } from '../../http/openai-errors.js';
import { routeHeaders } from '../../http/route-headers.js';
import { type StreamFormat, sseBody } from '../../http/sse-stream.js';
import { NO_RETRY } from './retry-advice.js';
import type { AdmittedRequest } from './routed-door.js';

/** One admitted chat request, whichever front door it came through: what it routes over, its id, and the caller's disconnect. */
export interface ChatCall {
  target: Target;
  chat: ChatRequest;
  /** The gateway's request id (the ledger's `requestId`). */
  requestId: string;
  /** The caller's `x-request-id`, when it sent a usable one (the request line's `clientRequestId`). */
  clientRequestId: string | undefined;
  /** The request's signal: aborts when the caller goes away. */
  signal: AbortSignal;
}

/** The chat call of an admitted request whose neutral request is a chat request. */
export function chatCall(admitted: AdmittedRequest<unknown, ChatRequest>): ChatCall {
  const { target, requestId, clientRequestId, signal } = admitted;
  return { target, chat: admitted.neutral.request, requestId, clientRequestId, signal };
}

/**
 * A plain answer, rendered by the front door; a failure is the OpenAI error envelope (a front door
 * with another envelope rewrites it). A plain answer has no body to cancel: the request's own
 * signal is the caller's.
 */
export async function answerCall(
  gateway: Gateway,
  call: ChatCall,
  render: (
    result: RouteSuccess<ChatResult>,
    requestId: string,
    variant: ChainVariant | undefined,
  ) => Response,
): Promise<Response> {
  const { target, requestId, clientRequestId } = call;
  const result = await gateway.generate(target, call.chat, {
    requestId,
    clientRequestId,
    signal: call.signal,
  });
  return result.ok
    ? render(result, requestId, target.variant)
    : failureResponse(result, target.pipeline, target.variant);
}

/**
 * A stream in the front door's format (`format` gets the model key that answered). A stream also
 * ends when its reader cancels the body, so it gets a signal of its own.
 */
export async function streamCall(
  gateway: Gateway,
  call: ChatCall,
  format: (model: string) => StreamFormat,
): Promise<Response> {
  const { target, requestId, clientRequestId } = call;
  const caller = new AbortController();
  if (call.signal.aborted) caller.abort();
  else call.signal.addEventListener('abort', () => caller.abort(), { once: true });
  const result = await gateway.stream(target, call.chat, {
    requestId,
    clientRequestId,
    signal: caller.signal,
  });
  if (!result.ok) return failureResponse(result, target.pipeline, target.variant);
  return streamResponse(result, { format: format(result.model), variant: target.variant }, () =>
    caller.abort(),
  );
}

/** A committed stream as server-sent events in `format`, with the evidence headers. */
function streamResponse(
  result: RouteSuccess<CommittedStream>,
  { format, variant }: { format: StreamFormat; variant: ChainVariant | undefined },
  abortCaller: () => void,
): Response {
  const stream = sseBody(result, { format, abortCaller });
  return new Response(stream, {
    status: 200,
    headers: {
      ...routeHeaders(result, variant),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
    },
  });
}

/** The terminal error of a failed request in the OpenAI envelope, with the evidence headers (chat and embeddings). */
export function failureResponse(result: RouteFailure, pipeline: string, variant?: ChainVariant): Response {
  const t = terminalError(result, pipeline);
  const headers = routeHeaders(result, variant);
  if (t.retryAfterSeconds !== undefined) headers['retry-after'] = String(t.retryAfterSeconds);
  // A terminal 5xx comes after the gateway's own attempts (or with no route it could try): the
  // client's retry would run the same exhausted chain again (docs/http-api.md#retry-advice). But
  // a 503 `capacity_exhausted` says when in-flight slots free up: waiting for it can help.
  if (t.status >= 500 && t.retryAfterSeconds === undefined) Object.assign(headers, NO_RETRY);
  return errorResponse(t.status, errorBody(t.message, t.type, t.code), headers);
}
