import type { Hono, MiddlewareHandler } from 'hono';
import type { ChatRequest, ChatResult } from '../../core/chat/chat-model.js';
import type { Gateway } from '../../core/gateway/gateway.js';
import type { Target } from '../../core/gateway/target.js';
import type { ChainVariant } from '../../core/ledger/ledger-entry.js';
import type { CommittedStream } from '../../core/router/route-chat.js';
import type { RouteFailure, RouteSuccess } from '../../core/router/route-types.js';
import { terminalError } from '../../core/router/terminal-error.js';
import type { AdmissionInput } from '../../http/admission-gate.js';
import {
  routeTarget,
  type TargetDeps,
  type TargetEnv,
  withinMessageLimit,
} from '../../http/chat-admission.js';
import type { HttpEnv } from '../../http/http-env.js';
import { jsonBody } from '../../http/json-body.js';
import { errorBody, errorResponse } from '../../http/openai-errors.js';
import { routeHeaders } from '../../http/route-headers.js';
import { type StreamFormat, sseBody } from '../../http/sse-stream.js';
import { chatCompletionBodySchema, toChatRequest } from './chat-request-schema.js';
import { type AnswerIds, completionBody } from './openai-format.js';
import { openAIStreamFormat } from './openai-stream-format.js';

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

/**
 * `POST /v1/chat/completions`: validates the body, resolves the pipeline or chain, admits it
 * (`admit`, docs/design.md#admission), routes, and answers in the OpenAI shape, as JSON or as
 * server-sent events.
 */
export function addChatCompletions(
  app: Hono<HttpEnv>,
  deps: TargetDeps,
  admit: MiddlewareHandler<TargetEnv, string, AdmissionInput> = (_c, next) => next(),
): void {
  app.post(
    '/v1/chat/completions',
    jsonBody(chatCompletionBodySchema, deps.bounds),
    withinMessageLimit(deps.bounds),
    routeTarget(deps),
    admit,
    (c) => {
      const body = c.req.valid('json');
      const call = {
        target: c.var.target,
        chat: toChatRequest(body),
        requestId: c.var.requestId,
        clientRequestId: c.var.clientRequestId,
        signal: c.req.raw.signal,
      };
      if (!body.stream) return answerCall(deps.gateway, call, completionResponse);
      const includeUsage = body.stream_options?.include_usage === true;
      return streamCall(deps.gateway, call, (model) =>
        openAIStreamFormat(answerIds(call.requestId, model), includeUsage),
      );
    },
  );
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

/** The ids of the answer: the chat completion id follows the request id. */
function answerIds(requestId: string, model: string): AnswerIds {
  return { id: `chatcmpl-${requestId}`, created: Math.floor(Date.now() / 1000), model };
}

function completionResponse(
  result: RouteSuccess<ChatResult>,
  requestId: string,
  variant: ChainVariant | undefined,
): Response {
  return new Response(JSON.stringify(completionBody(result.value, answerIds(requestId, result.model))), {
    status: 200,
    headers: { ...routeHeaders(result, variant), 'content-type': 'application/json' },
  });
}

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
  return errorResponse(t.status, errorBody(t.message, t.type, t.code), headers);
}
