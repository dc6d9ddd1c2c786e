/**
 * The reasoning and prompt-caching fields of a chat completions body: `reasoning_effort`,
 * `cache_control` on content parts and messages as OpenRouter-style clients send it, and the
 * signed reasoning an assistant message hands back in `reasoning_details`
 * (docs/http-api.md#reasoning-and-prompt-caching).
 */
import * as z from 'zod';
import type { CacheBreakpoint, ReasoningBlock } from '../../core/chat/chat-model.js';
import { lazySchema, once } from '../../core/lazy-schema.js';
import { breakpointOf } from '../shared/cache-breakpoint.js';

/** OpenAI's `reasoning_effort`. */
export const reasoningEffortSchema = lazySchema(() => reasoningEffortSchemaOnce());
const reasoningEffortSchemaOnce = once(() => z.enum(['minimal', 'low', 'medium', 'high']));

/** One entry of `reasoning_details`: reasoning text (signed or not) or encrypted reasoning. */
const reasoningDetailOnce = once(() =>
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('reasoning.text'), text: z.string(), signature: z.string().nullish() }),
    z.object({ type: z.literal('reasoning.encrypted'), data: z.string() }),
    z.object({ type: z.literal('reasoning.summary'), summary: z.string() }),
  ]),
);

/** `reasoning_details` of an assistant message: the answer's reasoning, handed back as it came. */
export const reasoningDetailsSchema = lazySchema(() => reasoningDetailsSchemaOnce());
const reasoningDetailsSchemaOnce = once(() => z.array(reasoningDetailOnce()));

/**
 * The message's cache breakpoint: its own `cache_control`, else that of its last content part that
 * sets one (a breakpoint inside a message moves to the message's end, where every family can put it).
 */
export function messageCache(message: { content?: unknown }): CacheBreakpoint | undefined {
  const parts = Array.isArray(message.content) ? (message.content as object[]) : [];
  return breakpointOf([...parts, message]);
}

/** `reasoning_details` as reasoning blocks (summaries are the caller's to read, not to send back). */
export function reasoningFromDetails(
  details: z.infer<typeof reasoningDetailsSchema> | undefined,
): ReasoningBlock[] | undefined {
  const blocks = (details ?? []).flatMap((detail): ReasoningBlock[] => {
    if (detail.type === 'reasoning.encrypted') return [{ type: 'redacted', data: detail.data }];
    if (detail.type === 'reasoning.summary') return [];
    return [{ type: 'thinking', text: detail.text, signature: detail.signature ?? undefined }];
  });
  return blocks.length === 0 ? undefined : blocks;
}

/** The answer's reasoning as `reasoning_details` (what a client hands back on its next turn). */
export function reasoningDetails(reasoning: readonly ReasoningBlock[]) {
  return reasoning.map((block) =>
    block.type === 'redacted'
      ? { type: 'reasoning.encrypted', data: block.data }
      : { type: 'reasoning.text', text: block.text, signature: block.signature ?? null },
  );
}
