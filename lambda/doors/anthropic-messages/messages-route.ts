import type { Hono, MiddlewareHandler } from 'hono';
import type { ChatResult } from '../../core/chat/chat-model.js';
import type { ChainVariant } from '../../core/ledger/ledger-entry.js';
import type { RouteSuccess } from '../../core/router/route-types.js';
import type { AdmissionInput } from '../../http/admission-gate.js';
import {
  routeTarget,
  type TargetDeps,
  type TargetEnv,
  withinMessageLimit,
} from '../../http/chat-admission.js';
import type { HttpEnv } from '../../http/http-env.js';
import { jsonBody } from '../../http/json-body.js';
import { routeHeaders } from '../../http/route-headers.js';
import { answerCall, streamCall } from '../openai-chat/chat-completions.js';
import { type MessageIds, messageBody } from './anthropic-format.js';
import { anthropicStreamFormat } from './anthropic-stream-format.js';
import { messagesBodySchema, messagesToChatRequest } from './messages-request-schema.js';

/**
 * `POST /v1/messages`: Anthropic's Messages API in front of the same routing as
 * `/v1/chat/completions` — the same body reader, bounds, target resolution, admission and
 * gateway calls; only the body's shape and the answer's differ. Errors are rewritten into
 * Anthropic's envelope by `anthropicErrors`, registered on the path before caller auth.
 */
export function addMessages(
  app: Hono<HttpEnv>,
  deps: TargetDeps,
  admit: MiddlewareHandler<TargetEnv, string, AdmissionInput> = (_c, next) => next(),
): void {
  app.post(
    '/v1/messages',
    jsonBody(messagesBodySchema, deps.bounds),
    withinMessageLimit(deps.bounds),
    routeTarget(deps),
    admit,
    (c) => {
      const body = c.req.valid('json');
      const call = {
        target: c.var.target,
        chat: messagesToChatRequest(body),
        requestId: c.var.requestId,
        clientRequestId: c.var.clientRequestId,
        signal: c.req.raw.signal,
      };
      if (!body.stream) return answerCall(deps.gateway, call, messageResponse);
      return streamCall(deps.gateway, call, (model) =>
        anthropicStreamFormat(messageIds(call.requestId, model)),
      );
    },
  );
}

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
