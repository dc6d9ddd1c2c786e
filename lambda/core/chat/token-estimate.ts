/**
 * Token counts the gateway works out itself when an upstream did not say (docs/concepts.md#usage-of-interrupted-streams):
 * a prompt's size before any call (admission's reservation, context-window skipping) and the
 * output a cut stream delivered. One rule everywhere: `ceil(characters / charsPerToken)`.
 */
import type { ChatRequest } from './chat-model.js';

/** Characters counted as one token when nothing better is known. Default of `admission.charsPerToken`: 4. */
export const DEFAULT_CHARS_PER_TOKEN = 4;

/** Tokens for `chars` characters at `charsPerToken` (default 4), rounded up; 0 for none. */
export function estimateTokens(chars: number, charsPerToken: number = DEFAULT_CHARS_PER_TOKEN): number {
  return Math.ceil(Math.max(0, chars) / charsPerToken);
}

/** Characters of one message's content, whatever its shape (text, or parts counted as their JSON text). */
function contentChars(content: unknown): number {
  if (typeof content === 'string') return content.length;
  if (content === null || content === undefined) return 0;
  return JSON.stringify(content).length;
}

/**
 * Characters of a chat request's text: every message's content (system and tool results
 * included) and the assistant tool calls' names and arguments. Tool definitions are not counted:
 * the estimate is a floor, so it never makes the gateway skip a model the request would fit.
 */
export function promptChars(chat: Pick<ChatRequest, 'messages'>): number {
  let chars = 0;
  for (const message of chat.messages) {
    chars += contentChars(message.content);
    if (message.role === 'assistant')
      for (const call of message.toolCalls ?? []) chars += call.name.length + call.arguments.length;
  }
  return chars;
}

/** The prompt tokens of a chat request, estimated from {@link promptChars} at `charsPerToken` (default 4). */
export function estimatePromptTokens(
  chat: Pick<ChatRequest, 'messages'>,
  charsPerToken: number = DEFAULT_CHARS_PER_TOKEN,
): number {
  return estimateTokens(promptChars(chat), charsPerToken);
}
