/**
 * The OpenAI chat completions door, `POST /v1/chat/completions`: validates the body, reads it into
 * the neutral request, runs the request lifecycle (bounds, target, admission), routes, and answers
 * in the OpenAI shape, as JSON or as server-sent events. Its errors are the app's default envelope.
 */
import { Hono } from 'hono';
import type { ChatResult } from '../../core/chat/chat-model.js';
import type { ChainVariant } from '../../core/ledger/ledger-entry.js';
import type { RouteSuccess } from '../../core/router/route-types.js';
import type { HttpEnv } from '../../http/http-env.js';
import { jsonBody } from '../../http/json-body.js';
import { routeHeaders } from '../../http/route-headers.js';
import { answerCall, type ChatCall, streamCall } from '../shared/chat-call.js';
import { admitFor, type Door, type DoorDeps } from '../shared/door.js';
import { neutralBody, resolvesTarget, withinBounds } from '../shared/door-lifecycle.js';
import {
  type ChatCompletionBody,
  chatCompletionBodySchema,
  chatCompletionDemand,
  toChatRequest,
} from './chat-request-schema.js';
import { type AnswerIds, completionBody } from './openai-format.js';
import { openAIStreamFormat } from './openai-stream-format.js';

/** The body read into the neutral request; the door keeps the body for `stream_options`. */
const neutral = (body: ChatCompletionBody) => ({
  model: body.model,
  demand: chatCompletionDemand(body),
  request: toChatRequest(body),
  streamed: body.stream === true,
});

/** The sub-app: `POST /` under `/v1/chat/completions`. */
export function createChatCompletionsApp(deps: DoorDeps): Hono<HttpEnv> {
  const door = new Hono<HttpEnv>();
  door.post(
    '/',
    jsonBody(chatCompletionBodySchema, deps.bounds),
    neutralBody(neutral),
    withinBounds(deps.lifecycle, 'chat'),
    resolvesTarget(deps.lifecycle, 'chat'),
    admitFor(deps, 'chat'),
    (c) => {
      const body = c.req.valid('json');
      const call: ChatCall = {
        target: c.var.target,
        chat: c.var.neutral.request,
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
  return door;
}

/** `POST /v1/chat/completions`, traced as `chat`, in the default envelope. */
export const openAIChatDoor: Door = {
  path: '/v1/chat/completions',
  operation: 'chat',
  app: createChatCompletionsApp,
};

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
