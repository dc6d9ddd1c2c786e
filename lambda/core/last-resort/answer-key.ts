import type { ChatRequest } from '../chat/chat-model.js';

/** A one-way digest (SHA-256 hex in production), injected so the core stays pure. */
export type Digest = (text: string) => string;

/**
 * The key of "the same request" for the last-resort cache: pipeline, normalised messages and
 * every parameter that shapes the answer, hashed. Messages are the normalised ones (`developer`
 * is `system`, text parts joined), so two spellings of one request share an answer. The key is
 * a hash: prompt text never reaches a store.
 */
export function answerKey(pipeline: string, chat: ChatRequest, digest: Digest): string {
  const canonical = [
    pipeline,
    chat.messages,
    chat.maxTokens ?? null,
    chat.temperature ?? null,
    chat.topP ?? null,
    chat.stop ?? null,
    chat.tools ?? null,
    chat.toolChoice ?? null,
    chat.responseFormat ?? null,
  ];
  return digest(JSON.stringify(canonical));
}
