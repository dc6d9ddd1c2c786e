/**
 * The legacy `functions` / `function_call` fields of Chat Completions (docs/http-api.md#legacy-functions):
 * read as tools and a tool choice, and a `function` message as a tool result; the answer goes
 * back in the legacy `function_call` shape when the caller asked with `functions`.
 */
import * as z from 'zod';
import type { ChatMessage, ToolChoice, ToolDefinition } from '../../core/chat/chat-model.js';
import { lazySchema, once } from '../../core/lazy-schema.js';

/** One entry of `functions`: what `tools[].function` holds. */
export const legacyFunction = lazySchema(() => legacyFunctionOnce());
const legacyFunctionOnce = once(() =>
  z.object({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1–64 letters, digits, _ or -'),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
);

/** `function_call`: `none`, `auto`, or `{name}` (call that function). */
export const legacyFunctionCall = lazySchema(() => legacyFunctionCallOnce());
const legacyFunctionCallOnce = once(() =>
  z.union([z.enum(['none', 'auto']), z.object({ name: z.string().min(1) })]),
);

/** A legacy `function` message: a function's result, matched to the latest unanswered call. */
export const functionMessage = lazySchema(() => functionMessageOnce());
const functionMessageOnce = once(() =>
  z.object({
    role: z.literal('function'),
    name: z.string().min(1),
    content: z.string().nullable(),
  }),
);

/** The tools of `functions`. */
export function toolsOfFunctions(functions: z.output<typeof legacyFunction>[]): ToolDefinition[] {
  return functions.map((f) => ({ name: f.name, description: f.description, parameters: f.parameters }));
}

/** The tool choice of `function_call`. */
export function toolChoiceOfFunctionCall(
  choice: z.output<typeof legacyFunctionCall> | undefined,
): ToolChoice | undefined {
  if (choice === undefined || typeof choice === 'string') return choice;
  return { name: choice.name };
}

/** The id a legacy call gets in the neutral history: legacy calls have none, tool results need one. */
export function legacyCallId(index: number): string {
  return `call_legacy_${index}`;
}

/**
 * Gives each legacy `function` result (a tool message whose id is still a function name, marked
 * by {@link pendingFunctionResult}) the id of the latest assistant call of that name before it.
 */
export function linkFunctionResults(messages: ChatMessage[]): ChatMessage[] {
  const open: { id: string; name: string }[] = [];
  return messages.map((message) => {
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) open.push({ id: call.id, name: call.name });
      return message;
    }
    if (message.role !== 'tool' || !message.toolCallId.startsWith(PENDING)) return message;
    const name = message.toolCallId.slice(PENDING.length);
    const index = open.findLastIndex((call) => call.name === name);
    const call = index >= 0 ? open.splice(index, 1)[0] : undefined;
    return { ...message, toolCallId: call?.id ?? legacyCallId(messages.indexOf(message)) };
  });
}

const PENDING = '\u0000function:';

/** A tool message for a legacy `function` result, still to be linked by {@link linkFunctionResults}. */
export function pendingFunctionResult(m: z.output<typeof functionMessage>): ChatMessage {
  return { role: 'tool', toolCallId: `${PENDING}${m.name}`, content: m.content ?? '' };
}
