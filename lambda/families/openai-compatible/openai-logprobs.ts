/** A Chat Completions choice's `logprobs` read into neutral token log probabilities. */
import type { TokenAlternative, TokenLogprob } from '../../core/chat/chat-model.js';
import { isRecord } from '../shared/json-shape.js';

/** One `{token, logprob, bytes}`, or undefined when it is not one. */
function alternativeOf(value: unknown): TokenAlternative | undefined {
  if (!isRecord(value) || typeof value.token !== 'string' || typeof value.logprob !== 'number')
    return undefined;
  const bytes =
    Array.isArray(value.bytes) && value.bytes.every((b) => typeof b === 'number') ? value.bytes : null;
  return { token: value.token, logprob: value.logprob, bytes: bytes as number[] | null };
}

/**
 * `choice.logprobs.content` as neutral entries; undefined when absent or not a list. Log
 * probabilities are evidence beside the answer, not the answer: an entry of the wrong shape is
 * left out rather than failing the attempt.
 */
export function mapOpenAILogprobs(logprobs: unknown): TokenLogprob[] | undefined {
  const content = isRecord(logprobs) ? logprobs.content : undefined;
  if (!Array.isArray(content)) return undefined;
  const tokens: TokenLogprob[] = [];
  for (const entry of content) {
    const token = alternativeOf(entry);
    if (!token || !isRecord(entry)) continue;
    const top = Array.isArray(entry.top_logprobs) ? entry.top_logprobs.map(alternativeOf) : [];
    tokens.push({ ...token, top: top.filter((t): t is TokenAlternative => t !== undefined) });
  }
  return tokens;
}
