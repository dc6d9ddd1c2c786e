/**
 * What a neutral request needs a route to carry (docs/concepts.md#capabilities), in neutral words
 * only. Each rule is a row: a new need (e.g. reasoning, cache breakpoints) is one more row.
 */
import type { ChatMessage, ChatRequest, MessageContent } from '../chat/chat-model.js';
import { partsOf } from '../chat/content-parts.js';
import { CAPABILITIES, type Capability } from './capability.js';

/** The capabilities one piece of content needs: images and documents, inline or by URL. */
function contentNeeds(content: MessageContent, found: Set<Capability>): void {
  for (const part of partsOf(content)) {
    if (part.type === 'text') continue;
    // A URL still needs the part itself: a route that takes no images takes no image URL either.
    found.add(part.type === 'image' ? 'images' : 'documents');
    if (part.source.kind === 'url') found.add(part.type === 'image' ? 'imageUrls' : 'documentUrls');
  }
}

/** The capabilities one message needs. */
function messageNeeds(message: ChatMessage, found: Set<Capability>): void {
  switch (message.role) {
    case 'user':
      contentNeeds(message.content, found);
      return;
    case 'tool': {
      found.add('tools');
      contentNeeds(message.content, found);
      if (partsOf(message.content).some((p) => p.type !== 'text')) found.add('toolResultMedia');
      return;
    }
    case 'assistant':
      if ((message.toolCalls ?? []).length > 0) found.add('tools');
      return;
    case 'system':
      return;
  }
}

/**
 * Every capability `request` needs, in {@link CAPABILITIES} order (no repeats):
 * - images / documents in a user message or tool result (`imageUrls` / `documentUrls` as well
 *   when given by URL; `toolResultMedia` when inside a tool result);
 * - `tools` when it defines tools or its history holds tool calls or results;
 * - `logprobs` when it asks for log probabilities;
 * - `reasoning` when it asks for reasoning (an effort or a budget);
 * - `prefill` when it ends with an assistant message that has text and no tool calls.
 */
export function needsOf(request: ChatRequest): Capability[] {
  const found = new Set<Capability>();
  for (const message of request.messages) messageNeeds(message, found);
  if ((request.tools ?? []).length > 0) found.add('tools');
  if (request.logprobs !== undefined) found.add('logprobs');
  if (request.reasoning !== undefined) found.add('reasoning');
  const last = request.messages.at(-1);
  if (last?.role === 'assistant' && last.content && (last.toolCalls ?? []).length === 0) found.add('prefill');
  return CAPABILITIES.filter((name) => found.has(name));
}
