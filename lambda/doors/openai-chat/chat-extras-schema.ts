/**
 * The reasoning and prompt-caching fields of a chat completions body: `reasoning_effort`,
 * `cache_control` on content parts and messages as OpenRouter-style clients send it, and the
 * signed reasoning an assistant message hands back in `reasoning_details`
 * (docs/http-api.md#reasoning-and-prompt-caching).
 */
import * as z from 'zod';
import type { CacheBreakpoint, ReasoningBlock } from '../../core/chat/chat-model.js';

/** Anthropic's `cache_control`, as OpenRouter-style clients put it on parts and messages. */
export const cacheControlSchema = z.object({
  type: z.literal('ephemeral', 'only {type: "ephemeral"} cache breakpoints are supported'),
  ttl: z.enum(['5m', '1h']).optional(),
});

/** OpenAI's `reasoning_effort`. */
export const reasoningEffortSchema = z.enum(['minimal', 'low', 'medium', 'high']);

/** One entry of `reasoning_details`: reasoning text (signed or not) or encrypted reasoning. */
const reasoningDetail = z.discriminatedUnion('type', [
  z.object({ type: z.literal('reasoning.text'), text: z.string(), signature: z.string().nullish() }),
  z.object({ type: z.literal('reasoning.encrypted'), data: z.string() }),
  z.object({ type: z.literal('reasoning.summary'), summary: z.string() }),
]);

/** `reasoning_details` of an assistant message: the answer's reasoning, handed back as it came. */
export const reasoningDetailsSchema = z.array(reasoningDetail);

type Part = { cache_control?: z.infer<typeof cacheControlSchema> | undefined };

/**
 * The message's cache breakpoint: its own `cache_control`, else that of one of its content parts
 * (a breakpoint inside a message moves to the message's end, where every family can put it).
 */
export function messageCache(message: {
  cache_control?: z.infer<typeof cacheControlSchema> | undefined;
  content?: unknown;
}): CacheBreakpoint | undefined {
  const parts: Part[] = Array.isArray(message.content) ? (message.content as Part[]) : [];
  const control = message.cache_control ?? parts.findLast((part) => part.cache_control)?.cache_control;
  if (control === undefined) return undefined;
  return control.ttl === undefined ? {} : { ttl: control.ttl };
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
