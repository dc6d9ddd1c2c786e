import type { Hono, MiddlewareHandler } from 'hono';
import type { ChatResult } from '../core/chat/chat-model.js';
import {
  type ChatCompletionBody,
  chatCompletionBodySchema,
  toChatRequest,
} from '../core/chat/chat-request-schema.js';
import { type AnswerIds, completionBody } from '../core/chat/openai-format.js';
import type { Target } from '../core/gateway/target.js';
import type { CommittedStream } from '../core/router/route-chat.js';
import type { RouteFailure, RouteSuccess } from '../core/router/route-types.js';
import { terminalError } from '../core/router/terminal-error.js';
import type { AdmissionInput } from './admission-gate.js';
import { routeTarget, type TargetDeps, type TargetEnv, withinMessageLimit } from './chat-admission.js';
import type { HttpEnv } from './http-env.js';
import { jsonBody } from './json-body.js';
import { errorBody, errorResponse } from './openai-errors.js';
import { routeHeaders } from './route-headers.js';
import { sseBody } from './sse-stream.js';

/** One admitted chat request: what it routes over, its id, and the caller's disconnect. */
interface ChatCall {
  target: Target;
  body: ChatCompletionBody;
  requestId: string;
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
    jsonBody(chatCompletionBodySchema),
    withinMessageLimit(deps.bounds),
    routeTarget(deps),
    admit,
    (c) => {
      const call = {
        target: c.var.target,
        body: c.req.valid('json'),
        requestId: c.var.requestId,
        signal: c.req.raw.signal,
      };
      return call.body.stream ? streamed(deps, call) : answered(deps, call);
    },
  );
}

/** A plain answer has no body to cancel: the request's own signal is the caller's. */
async function answered({ gateway }: TargetDeps, call: ChatCall): Promise<Response> {
  const { target, requestId } = call;
  const result = await gateway.generate(target, toChatRequest(call.body), { requestId, signal: call.signal });
  return result.ok
    ? completionResponse(result, requestId)
    : failureResponse(result, target.pipeline, requestId);
}

/** A stream also ends when its reader cancels the body, so it gets a signal of its own. */
async function streamed({ gateway }: TargetDeps, call: ChatCall): Promise<Response> {
  const { target, requestId } = call;
  const caller = new AbortController();
  if (call.signal.aborted) caller.abort();
  else call.signal.addEventListener('abort', () => caller.abort(), { once: true });
  const result = await gateway.stream(target, toChatRequest(call.body), { requestId, signal: caller.signal });
  if (!result.ok) return failureResponse(result, target.pipeline, requestId);
  const includeUsage = call.body.stream_options?.include_usage === true;
  return streamResponse(result, requestId, includeUsage, () => caller.abort());
}

/** The ids of the answer: the chat completion id follows the request id. */
function answerIds(requestId: string, model: string): AnswerIds {
  return { id: `chatcmpl-${requestId}`, created: Math.floor(Date.now() / 1000), model };
}

function completionResponse(result: RouteSuccess<ChatResult>, requestId: string): Response {
  return new Response(JSON.stringify(completionBody(result.value, answerIds(requestId, result.model))), {
    status: 200,
    headers: { ...routeHeaders(requestId, result), 'content-type': 'application/json' },
  });
}

function streamResponse(
  result: RouteSuccess<CommittedStream>,
  requestId: string,
  includeUsage: boolean,
  abortCaller: () => void,
): Response {
  const stream = sseBody(result, { ids: answerIds(requestId, result.model), includeUsage, abortCaller });
  return new Response(stream, {
    status: 200,
    headers: {
      ...routeHeaders(requestId, result),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
    },
  });
}

/** The terminal error of a failed request in the OpenAI envelope, with the evidence headers (chat and embeddings). */
export function failureResponse(result: RouteFailure, pipeline: string, requestId: string): Response {
  const t = terminalError(result, pipeline);
  const headers = routeHeaders(requestId, result);
  if (t.retryAfterSeconds !== undefined) headers['retry-after'] = String(t.retryAfterSeconds);
  return errorResponse(t.status, errorBody(t.message, t.type, t.code), headers);
}
