/**
 * The reasoning and prompt-caching fields of a Messages body: `thinking`, the signed thinking
 * blocks an assistant turn hands back, and `cache_control` on blocks and tools
 * (docs/http-api.md#reasoning-and-prompt-caching).
 */
import * as z from 'zod';
import type {
  CacheBreakpoint,
  ChatMessage,
  ReasoningBlock,
  ReasoningRequest,
} from '../../core/chat/chat-model.js';
import { MIN_BUDGET_TOKENS } from '../../core/chat/reasoning-budget.js';
import { lazySchema, once } from '../../core/lazy-schema.js';
import { cacheControlSchema } from '../shared/cache-breakpoint.js';

/** Fields of a block or tool that may carry a breakpoint. */
export const cacheable = { cache_control: cacheControlSchema.nullish() };

/** `thinking`: reasoning on with a token budget, or off. */
export const thinkingSchema = lazySchema(() => thinkingSchemaOnce());
const thinkingSchemaOnce = once(() =>
  z.discriminatedUnion('type', [
    z.object({
      type: z.literal('enabled'),
      budget_tokens: z.number().int().min(MIN_BUDGET_TOKENS, `must be at least ${MIN_BUDGET_TOKENS}`),
    }),
    z.object({ type: z.literal('disabled') }),
  ]),
);

/** A thinking block handed back: its text and signature exactly as the answer gave them. */
export const thinkingBlockSchema = lazySchema(() => thinkingBlockSchemaOnce());
const thinkingBlockSchemaOnce = once(() =>
  z.object({
    type: z.literal('thinking'),
    thinking: z.string(),
    signature: z.string(),
  }),
);

/** A redacted thinking block handed back: its opaque `data`. */
export const redactedThinkingBlockSchema = lazySchema(() => redactedThinkingBlockSchemaOnce());
const redactedThinkingBlockSchemaOnce = once(() =>
  z.object({
    type: z.literal('redacted_thinking'),
    data: z.string(),
  }),
);

/** `message` with `cache` when it is set. */
export function withCache<M extends ChatMessage>(message: M, cache: CacheBreakpoint | undefined): M {
  return cache === undefined ? message : { ...message, cache };
}

/** An assistant turn's thinking blocks, in their order, as reasoning blocks. */
export function reasoningBlocks(content: readonly { type: string }[] | string): ReasoningBlock[] {
  if (typeof content === 'string') return [];
  return content.flatMap((block): ReasoningBlock[] => {
    const thinking = thinkingBlockSchemaOnce().safeParse(block);
    if (thinking.success) {
      return [{ type: 'thinking', text: thinking.data.thinking, signature: thinking.data.signature }];
    }
    const redacted = redactedThinkingBlockSchemaOnce().safeParse(block);
    return redacted.success ? [{ type: 'redacted', data: redacted.data.data }] : [];
  });
}

/** The neutral reasoning request of `thinking`: its budget when enabled, none when disabled or absent. */
export function thinkingRequest(
  thinking: z.infer<typeof thinkingSchema> | undefined,
): ReasoningRequest | undefined {
  return thinking?.type === 'enabled' ? { budgetTokens: thinking.budget_tokens } : undefined;
}
