/**
 * `cache_control`, as both chat doors read it: Anthropic's prompt-cache breakpoint, which
 * OpenRouter-style OpenAI clients send too (docs/http-api.md#reasoning-and-prompt-caching).
 */
import * as z from 'zod';
import type { CacheBreakpoint } from '../../core/chat/chat-model.js';

/** `cache_control`: a prompt-cache breakpoint after the block, part, message or tool it is set on. */
export const cacheControlSchema = z.object({
  type: z.literal('ephemeral', 'only {type: "ephemeral"} cache breakpoints are supported'),
  ttl: z.enum(['5m', '1h']).optional(),
});

type Control = z.infer<typeof cacheControlSchema> | null | undefined;

/**
 * The breakpoint of the last of `items` (blocks, parts, a message, a tool) that sets
 * `cache_control`; undefined when none does (or `items` is text).
 */
export function breakpointOf(items: readonly object[] | string | undefined): CacheBreakpoint | undefined {
  if (items === undefined || typeof items === 'string') return undefined;
  const control = items.map((item) => (item as { cache_control?: Control }).cache_control).findLast((c) => c);
  if (!control) return undefined;
  return control.ttl === undefined ? {} : { ttl: control.ttl };
}
