import type { FinishReason, ToolCall } from '../chat/chat-model.js';

/** A good answer kept for the last resort: what the caller got, and which model gave it. */
export interface CachedAnswer {
  content: string | null;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  /** The model key that answered. */
  model: string;
}

/**
 * Where the last good answer per request key is kept (memory locally, DynamoDB on AWS). The key
 * is a hash of the request, never its text. A store that fails never fails a request: the
 * gateway treats a throw as a miss.
 */
export interface AnswerCache {
  /** The answer kept under `key`, unless missing or expired at `now` (ms since the epoch). */
  get(key: string, now: number): Promise<CachedAnswer | undefined>;
  /** Keeps `answer` under `key` until `expiresAt` (ms since the epoch); too large an answer is not kept. */
  put(key: string, answer: CachedAnswer, expiresAt: number): Promise<void>;
}

/** The JSON a cache keeps for one answer: one definition of its size bound for every store. */
export const encodeAnswer = (answer: CachedAnswer): string => JSON.stringify(answer);
