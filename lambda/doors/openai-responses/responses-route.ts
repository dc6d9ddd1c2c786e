/**
 * The OpenAI Responses door, `POST /v1/responses`: the Responses API in its stateless use (the
 * default of the Vercel AI SDK's `openai('…')` and of `client.responses.create`), in front of the
 * same request lifecycle, routing, structured-output repair, ledger and evidence headers as chat
 * completions. Stored state and built-in tools are refused by name (stateful-refusals.ts). Its
 * errors are the app's default (OpenAI) envelope.
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
import { completedBody, type EchoedRequest, type ResponseIds } from './responses-format.js';
import { type ResponsesBody, responsesBodySchema } from './responses-request-schema.js';
import { responsesStreamFormat } from './responses-stream-format.js';
import { responsesDemand, responsesToChatRequest } from './responses-to-chat.js';

const neutral = (body: ResponsesBody) => ({
  model: body.model,
  demand: responsesDemand(body),
  request: responsesToChatRequest(body),
  streamed: body.stream === true,
});

/** The response id follows the request id; `created_at` is in seconds. */
const responseIds = (requestId: string, model: string): ResponseIds => ({
  id: `resp_${requestId}`,
  createdAt: Math.floor(Date.now() / 1000),
  model,
});

/** The sub-app: `POST /` under `/v1/responses`. */
export function createResponsesApp(deps: DoorDeps): Hono<HttpEnv> {
  return routedDoorApp(deps, {
    schema: responsesBodySchema(deps.bounds.maxMessages),
    use: 'chat',
    read: neutral,
    answer(admitted) {
      const call = chatCall(admitted);
      const echoed: EchoedRequest = admitted.body;
      if (!admitted.neutral.streamed) {
        return answerCall(deps.gateway, call, (result, requestId, variant) =>
          responseAnswer(result, responseIds(requestId, result.model), echoed, variant),
        );
      }
      return streamCall(deps.gateway, call, (model) =>
        responsesStreamFormat(responseIds(call.requestId, model), echoed),
      );
    },
  });
}

/** `POST /v1/responses`, traced as `chat`, in the default envelope. */
export const openAIResponsesDoor: Door = {
  path: '/v1/responses',
  operation: 'chat',
  app: createResponsesApp,
};

function responseAnswer(
  result: RouteSuccess<ChatResult>,
  ids: ResponseIds,
  echoed: EchoedRequest,
  variant: ChainVariant | undefined,
): Response {
  return new Response(JSON.stringify(completedBody(result.value, ids, echoed)), {
    status: 200,
    headers: { ...routeHeaders(result, variant), 'content-type': 'application/json' },
  });
}
