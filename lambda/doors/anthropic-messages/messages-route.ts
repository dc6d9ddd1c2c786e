/**
 * The Anthropic Messages door, `POST /v1/messages`: Anthropic's Messages API in front of the same
 * request lifecycle and routing as every door; only the body's shape, the answer's and the error
 * envelope differ. Its envelope (`anthropicErrors`) is placed outermost on its path by the app, so
 * refusals of the shared layers (caller keys, body limit) read as Anthropic's too.
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
import { anthropicErrors } from './anthropic-errors.js';
import { type MessageIds, messageBody } from './anthropic-format.js';
import { anthropicStreamFormat } from './anthropic-stream-format.js';
import { createCountTokensApp } from './count-tokens-route.js';
import {
  type MessagesBody,
  messagesBodySchema,
  messagesDemand,
  messagesToChatRequest,
} from './messages-request-schema.js';

const neutral = (body: MessagesBody) => ({
  model: body.model,
  demand: messagesDemand(body),
  request: messagesToChatRequest(body),
  streamed: body.stream === true,
});

/** The sub-app: `POST /` and `POST /count_tokens` under `/v1/messages`. */
export function createMessagesApp(deps: DoorDeps): Hono<HttpEnv> {
  const door = routedDoorApp(deps, {
    schema: messagesBodySchema,
    use: 'chat',
    read: neutral,
    answer(admitted) {
      const call = chatCall(admitted);
      if (!admitted.neutral.streamed) return answerCall(deps.gateway, call, messageResponse);
      return streamCall(deps.gateway, call, (model) =>
        anthropicStreamFormat(messageIds(call.requestId, model)),
      );
    },
  });
  return door.route('/count_tokens', createCountTokensApp(deps));
}

/** `POST /v1/messages`, traced as `chat`, in Anthropic's error envelope. */
export const anthropicMessagesDoor: Door = {
  path: '/v1/messages',
  operation: 'chat',
  errors: anthropicErrors,
  app: createMessagesApp,
};

/** The message id follows the request id. */
const messageIds = (requestId: string, model: string): MessageIds => ({ id: `msg_${requestId}`, model });

function messageResponse(
  result: RouteSuccess<ChatResult>,
  requestId: string,
  variant: ChainVariant | undefined,
): Response {
  return new Response(JSON.stringify(messageBody(result.value, messageIds(requestId, result.model))), {
    status: 200,
    headers: { ...routeHeaders(result, variant), 'content-type': 'application/json' },
  });
}
