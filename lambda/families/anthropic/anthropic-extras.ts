/**
 * The Messages API's reasoning and prompt-caching fields: `thinking` from the request's
 * reasoning, signed thinking blocks sent back as they came, and `cache_control` where the request
 * set a breakpoint (docs/http-api.md#reasoning-and-prompt-caching).
 */
import type {
  CacheControlEphemeral,
  ContentBlockParam,
  ThinkingConfigParam,
} from '@anthropic-ai/sdk/resources/messages';
import type { CacheBreakpoint, ReasoningBlock, ReasoningRequest } from '../../core/chat/chat-model.js';
import { reasoningBudget } from '../../core/chat/reasoning-budget.js';

/** `thinking` for a request that asks for reasoning (its budget, else its effort's); else undefined. */
export function anthropicThinking(
  reasoning: ReasoningRequest | undefined,
  maxTokens: number,
): ThinkingConfigParam | undefined {
  const budget = reasoningBudget(reasoning, maxTokens);
  return budget === undefined ? undefined : { type: 'enabled', budget_tokens: budget };
}

/** Anthropic's `cache_control` for a breakpoint. */
export function cacheControl(cache: CacheBreakpoint): CacheControlEphemeral {
  return cache.ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl: cache.ttl };
}

/**
 * The reasoning blocks Anthropic takes back: signed thinking and redacted thinking, in their
 * order. Unsigned reasoning (another family's reasoning text) cannot be verified and is left out.
 */
export function thinkingBlocks(reasoning: readonly ReasoningBlock[] | undefined): ContentBlockParam[] {
  const blocks: ContentBlockParam[] = [];
  for (const block of reasoning ?? []) {
    if (block.type === 'redacted') blocks.push({ type: 'redacted_thinking', data: block.data });
    else if (block.signature !== undefined && block.signature !== '') {
      blocks.push({ type: 'thinking', thinking: block.text, signature: block.signature });
    }
  }
  return blocks;
}

/** Puts `cache_control` on the last of `blocks` (the message's end), when there is a breakpoint and a block. */
export function markLastBlock(blocks: ContentBlockParam[], cache: CacheBreakpoint | undefined): void {
  const last = blocks.at(-1);
  // Thinking blocks take no cache_control; a message that is only thinking has no place for one.
  if (
    cache === undefined ||
    last === undefined ||
    last.type === 'thinking' ||
    last.type === 'redacted_thinking'
  )
    return;
  (last as { cache_control?: CacheControlEphemeral }).cache_control = cacheControl(cache);
}
