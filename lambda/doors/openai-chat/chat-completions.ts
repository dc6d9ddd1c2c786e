/**
 * The OpenAI chat completions door, `POST /v1/chat/completions`: validates the body, reads it into
 * the neutral request, runs the request lifecycle (bounds, target, admission), routes, and answers
 * in the OpenAI shape, as JSON or as server-sent events. Its errors are the app's default envelope.
 */
import type { Hono } from 'hono';
import type { ChatResult } from '../../core/chat/chat-model.js';
import type { ChainVariant } from '../../core/ledger/ledger-entry.js';
import type { RouteSuccess } from '../../core/router/route-types.js';
import type { HttpEnv } from '../../http/http-env.js';
import { routeHeaders } from '../../http/route-headers.js';
import { answerCall, chatCall, streamCall } from '../shared/chat-call.js';
import type { Door, DoorDeps } from '../shared/door.js';
import { routedDoorApp } from '../shared/routed-door.js';
import {
  type ChatCompletionBody,
  chatCompletionBodySchema,
  chatCompletionDemand,
  toChatRequest,
} from './chat-request-schema.js';
import { type AnswerIds, type AnswerShape, completionBody } from './openai-format.js';
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
  return routedDoorApp(deps, {
    schema: chatCompletionBodySchema,
    use: 'chat',
    read: neutral,
    answer(admitted) {
      const call = chatCall(admitted);
      const shape = answerShape(admitted.body);
      if (!admitted.neutral.streamed) return answerCall(deps.gateway, call, completionResponse(shape));
      const includeUsage = admitted.body.stream_options?.include_usage === true;
      return streamCall(deps.gateway, call, (model) =>
        openAIStreamFormat(answerIds(call.requestId, model), includeUsage, shape),
      );
    },
  });
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

/** How the caller asked, where it shapes the answer: legacy `functions`, `logprobs`. */
function answerShape(body: ChatCompletionBody): AnswerShape {
  return { legacyFunctions: body.functions !== undefined, logprobs: body.logprobs === true };
}

const completionResponse =
  (shape: AnswerShape) =>
  (result: RouteSuccess<ChatResult>, requestId: string, variant: ChainVariant | undefined): Response => {
    const body = completionBody(result.value, answerIds(requestId, result.model), shape);
    return new Response(JSON.stringify(body), {
      status: 200,
      headers: { ...routeHeaders(result, variant), 'content-type': 'application/json' },
    });
  };
