/**
 * Bounds on the work one request may ask for (config `limits`, models' `maxOutputTokens`). The
 * body limit caps bytes; these cap what the bytes may ask: messages to process and tokens to
 * generate, both paid for by everyone who shares the gateway's provider quota.
 */

import type { ChatCompletionBody } from '../../doors/openai-chat/chat-request-schema.js';
import { type LimitsConfig, limitsSchema } from '../catalog/config-schema.js';
import type { Tier } from '../dsl/types.js';

/** The bounds in force: the config's `limits` block. */
export type RequestBounds = Readonly<LimitsConfig>;

/** The bounds of a config that sets no `limits` field: the config schema's defaults. */
export const DEFAULT_REQUEST_BOUNDS: RequestBounds = Object.freeze(limitsSchema.parse({}));

/** A request over a bound: the field it names and a message that states the limit. */
export interface BoundViolation {
  param: string;
  message: string;
}

/** Checked before routing: the number of messages. */
export function checkMessageCount(
  body: { messages: readonly unknown[] },
  bounds: RequestBounds,
): BoundViolation | undefined {
  if (body.messages.length <= bounds.maxMessages) return undefined;
  return {
    param: 'messages',
    message: `messages: at most ${bounds.maxMessages} messages per request, got ${body.messages.length}`,
  };
}

/**
 * Checked once the chain is known: `max_completion_tokens` (else `max_tokens`) against the
 * smallest output limit of the chain's models, so no fallback can fail for asking too much.
 *
 * @param outputLimit a model key's `maxOutputTokens`, or undefined for the default bound.
 */
export function checkOutputTokens(
  body: Pick<ChatCompletionBody, 'max_tokens' | 'max_completion_tokens'>,
  tiers: readonly Tier[],
  outputLimit: (modelKey: string) => number | undefined,
  bounds: RequestBounds,
): BoundViolation | undefined {
  const param = body.max_completion_tokens != null ? 'max_completion_tokens' : 'max_tokens';
  const asked = body.max_completion_tokens ?? body.max_tokens;
  if (asked == null) return undefined;
  let limit = Number.POSITIVE_INFINITY;
  let by: string | undefined;
  for (const member of tiers.flatMap((tier) => tier.members)) {
    const own = outputLimit(member.key);
    const modelLimit = own ?? bounds.maxOutputTokens;
    if (modelLimit < limit) {
      limit = modelLimit;
      by = own === undefined ? undefined : member.key;
    }
  }
  if (!Number.isFinite(limit)) limit = bounds.maxOutputTokens;
  if (asked <= limit) return undefined;
  const whose = by === undefined ? 'the gateway limit' : `the limit of model '${by}'`;
  return { param, message: `${param}: at most ${limit} (${whose}), got ${asked}` };
}

/** A caller-supplied name cut to `maxChars` (with `…`) before it is echoed in an error. */
export function echoable(name: string, maxChars: number): string {
  return name.length <= maxChars ? name : `${name.slice(0, maxChars)}…`;
}
