/**
 * Converse's reasoning and prompt-caching fields: the reasoning request as the model family on
 * Bedrock takes it, `reasoningContent` blocks read and sent back as they came, `cachePoint`
 * blocks where the request set a breakpoint (docs/http-api.md#reasoning-and-prompt-caching).
 */
import type { CachePointBlock, ContentBlock } from '@aws-sdk/client-bedrock-runtime';
import type { CacheBreakpoint, ReasoningBlock, ReasoningRequest } from '../../core/chat/chat-model.js';
import { reasoningBudget, reasoningEffort } from '../../core/chat/reasoning-budget.js';
import { isRecord } from '../shared/json-shape.js';
import type { ConverseDocument } from './bedrock-request.js';

/** A `cachePoint` block for a breakpoint (Converse's default cache, with the breakpoint's `ttl`). */
export function cachePoint(cache: CacheBreakpoint): { cachePoint: CachePointBlock } {
  return { cachePoint: cache.ttl === undefined ? { type: 'default' } : { type: 'default', ttl: cache.ttl } };
}

/**
 * Output tokens left for the answer when a request asks a Claude model on Bedrock for reasoning
 * without an output limit: `maxTokens` becomes the budget plus this many, since Claude requires
 * the limit to exceed the budget (and Converse's default may not).
 */
export const ANSWER_TOKENS_AFTER_BUDGET = 4096;

/** True for the models that take Nova's `reasoningConfig` rather than Claude's `thinking`. */
export const takesReasoningConfig = (modelId: string): boolean => /\bamazon\.nova/.test(modelId);

/**
 * `additionalModelRequestFields` for a request that asks for reasoning: Amazon Nova models take
 * `reasoningConfig` with an effort (`minimal` reads as `low`, the least they take); every other
 * model Anthropic's `thinking` with a token budget, as Claude on Bedrock does. Undefined when the
 * request asks for none.
 */
export function converseReasoningFields(
  reasoning: ReasoningRequest | undefined,
  modelId: string,
  maxTokens: number | undefined,
): ConverseDocument | undefined {
  if (takesReasoningConfig(modelId)) {
    const effort = reasoningEffort(reasoning);
    if (effort === undefined) return undefined;
    return {
      reasoningConfig: { type: 'enabled', maxReasoningEffort: effort === 'minimal' ? 'low' : effort },
    };
  }
  const budget = reasoningBudget(reasoning, maxTokens);
  return budget === undefined ? undefined : { thinking: { type: 'enabled', budget_tokens: budget } };
}

/**
 * The reasoning blocks Converse takes back, in their order: signed reasoning text and redacted
 * content (its base64 `data` as bytes). Unsigned reasoning cannot be verified and is left out.
 */
export function reasoningContentBlocks(reasoning: readonly ReasoningBlock[] | undefined): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  for (const block of reasoning ?? []) {
    if (block.type === 'redacted') {
      blocks.push({ reasoningContent: { redactedContent: Buffer.from(block.data, 'base64') } });
    } else if (block.signature !== undefined && block.signature !== '') {
      blocks.push({ reasoningContent: { reasoningText: { text: block.text, signature: block.signature } } });
    }
  }
  return blocks;
}

/** Bytes (as the SDK gives them) or base64 text (as JSON carries them) as base64 text; else undefined. */
export function base64Of(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  return value instanceof Uint8Array ? Buffer.from(value).toString('base64') : undefined;
}

/** A `reasoningContent` member of a Converse answer as a reasoning block; else undefined. */
export function reasoningBlockOf(content: unknown): ReasoningBlock | undefined {
  if (!isRecord(content)) return undefined;
  const text = content.reasoningText;
  if (isRecord(text) && typeof text.text === 'string') {
    return typeof text.signature === 'string'
      ? { type: 'thinking', text: text.text, signature: text.signature }
      : { type: 'thinking', text: text.text };
  }
  const data = base64Of(content.redactedContent);
  return data === undefined ? undefined : { type: 'redacted', data };
}
