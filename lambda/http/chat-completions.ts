import type { Context } from 'hono';
import type { Catalog } from '../core/catalog/catalog.js';
import { formatPath } from '../core/catalog/parse-config.js';
import { chatCompletionBodySchema, toChatRequest } from '../core/chat/chat-request-schema.js';
import { completionBody } from '../core/chat/openai-format.js';
import type { RequestBounds } from '../core/chat/request-bounds.js';
import type { Gateway } from '../core/gateway/gateway.js';
import type { RouteFailure } from '../core/router/route-types.js';
import { terminalError } from '../core/router/terminal-error.js';
import { messageCountResponse, outputTokensResponse } from './bounds-response.js';
import { errorBody, errorResponse } from './openai-errors.js';
import { requestIdOf } from './request-id.js';
import { routeHeaders } from './route-headers.js';
import { sseBody } from './sse-stream.js';

function failureResponse(result: RouteFailure, pipeline: string, requestId: string): Response {
  const t = terminalError(result, pipeline);
  const headers = routeHeaders(requestId, result);
  if (t.retryAfterSeconds !== undefined) headers['retry-after'] = String(t.retryAfterSeconds);
  return errorResponse(t.status, errorBody(t.message, t.type, t.code), headers);
}

/**
 * `POST /v1/chat/completions`: validates the body, resolves the pipeline or chain, routes, and
 * answers in the OpenAI shape, as JSON or as server-sent events.
 */
export async function chatCompletions(
  c: Context,
  gateway: Gateway,
  catalog: Catalog,
  bounds: RequestBounds,
): Promise<Response> {
  const requestId = requestIdOf(c);
  const idHeader = { 'x-request-id': requestId };

  let raw: unknown;
  try {
    raw = JSON.parse(await c.req.text());
  } catch (error) {
    const detail = error instanceof SyntaxError ? error.message : 'unreadable body';
    return errorResponse(
      400,
      errorBody(`request body is not valid JSON: ${detail}`, 'invalid_request_error', 'invalid_json'),
      idHeader,
    );
  }
  const parsed = chatCompletionBodySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const param = issue ? formatPath(issue.path) : '';
    const message = issue ? `${param || 'body'}: ${issue.message}` : 'invalid request body';
    return errorResponse(
      400,
      errorBody(message, 'invalid_request_error', 'invalid_value', param || null),
      idHeader,
    );
  }
  const body = parsed.data;
  const tooMany = messageCountResponse(body, bounds, idHeader);
  if (tooMany) return tooMany;

  const target = await gateway.resolveTarget(body.model, c.req.header('x-switchyard-pipeline'));
  if (target.kind === 'unknown') {
    return errorResponse(
      404,
      errorBody(target.message, 'invalid_request_error', 'model_not_found', target.param),
      idHeader,
    );
  }
  const tooLong = outputTokensResponse(body, target, catalog, bounds, idHeader);
  if (tooLong) return tooLong;

  // The caller's disconnect (the request's signal) aborts the upstream call and starts nothing new.
  const requestSignal = c.req.raw.signal;
  const chat = toChatRequest(body);
  const ids = (model: string) => ({
    id: `chatcmpl-${requestId}`,
    created: Math.floor(Date.now() / 1000),
    model,
  });

  if (body.stream) {
    // A stream also ends when its reader cancels the body, so it gets a signal of its own.
    const caller = new AbortController();
    if (requestSignal.aborted) caller.abort();
    else requestSignal.addEventListener('abort', () => caller.abort(), { once: true });
    const context = { requestId, signal: caller.signal };
    const result = await gateway.stream(target, chat, context);
    if (!result.ok) return failureResponse(result, target.pipeline, requestId);
    const stream = sseBody(result, {
      ids: ids(result.model),
      includeUsage: body.stream_options?.include_usage === true,
      abortCaller: () => caller.abort(),
    });
    return new Response(stream, {
      status: 200,
      headers: {
        ...routeHeaders(requestId, result),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
      },
    });
  }

  // A plain answer has no body to cancel: the request's own signal is the caller's.
  const result = await gateway.generate(target, chat, { requestId, signal: requestSignal });
  if (!result.ok) return failureResponse(result, target.pipeline, requestId);
  return new Response(JSON.stringify(completionBody(result.value, ids(result.model))), {
    status: 200,
    headers: { ...routeHeaders(requestId, result), 'content-type': 'application/json' },
  });
}
