import type { Catalog } from '../core/catalog/catalog.js';
import type { ChatCompletionBody } from '../core/chat/chat-request-schema.js';
import {
  type BoundViolation,
  checkMessageCount,
  checkOutputTokens,
  type RequestBounds,
} from '../core/chat/request-bounds.js';
import type { Target } from '../core/gateway/target.js';
import { errorBody, errorResponse } from './openai-errors.js';

const over = (violation: BoundViolation, headers: Record<string, string>): Response =>
  errorResponse(
    400,
    errorBody(violation.message, 'invalid_request_error', 'limit_exceeded', violation.param),
    headers,
  );

/** 400 `limit_exceeded` naming `messages` when the request holds too many; undefined when within bounds. */
export function messageCountResponse(
  body: Pick<ChatCompletionBody, 'messages'>,
  bounds: RequestBounds,
  headers: Record<string, string>,
): Response | undefined {
  const violation = checkMessageCount(body, bounds);
  return violation && over(violation, headers);
}

/** 400 `limit_exceeded` naming the token field when it asks more than the chain's models allow. */
export function outputTokensResponse(
  body: Pick<ChatCompletionBody, 'max_tokens' | 'max_completion_tokens'>,
  target: Target,
  catalog: Catalog,
  bounds: RequestBounds,
  headers: Record<string, string>,
): Response | undefined {
  const limitOf = (key: string) => catalog.models.get(key)?.maxOutputTokens;
  const violation = checkOutputTokens(body, target.tiers, limitOf, bounds);
  return violation && over(violation, headers);
}
