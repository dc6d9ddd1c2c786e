import { setBounded } from '../core/bounded-map.js';
import { type AnswerCache, type CachedAnswer, encodeAnswer } from '../core/last-resort/answer-cache.js';

/**
 * Last good answers in this process only (the local store): at most `maxEntries`, the oldest
 * forgotten first, none larger than `maxBytes` of JSON, each dropped once it expires.
 */
export function createMemoryAnswerCache(options: { maxEntries: number; maxBytes: number }): AnswerCache & {
  size(): number;
} {
  const entries = new Map<string, { answer: CachedAnswer; expiresAt: number }>();
  return {
    async get(key, now) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt > now) return entry.answer;
      entries.delete(key);
      return undefined;
    },
    async put(key, answer, expiresAt) {
      if (Buffer.byteLength(encodeAnswer(answer)) > options.maxBytes) return;
      // A fresh answer moves to the newest place.
      entries.delete(key);
      setBounded(entries, key, { answer, expiresAt }, options.maxEntries);
    },
    size: () => entries.size,
  };
}
