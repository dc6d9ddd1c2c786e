import type { Usage } from '../chat/chat-model.js';

/**
 * Catalog price of a model in US dollars per million tokens, one per kind of token
 * (docs/configuration.md#prices). A kind without its own price is billed at the price of the
 * count it is part of: cache reads and writes at `inputPerMTok`, reasoning at `outputPerMTok`.
 */
export interface Price {
  inputPerMTok: number;
  outputPerMTok: number;
  /** Input tokens read from the prompt cache. Default: `inputPerMTok`. */
  cachedInputPerMTok?: number | undefined;
  /** Input tokens written to the prompt cache. Default: `inputPerMTok`. */
  cacheWritePerMTok?: number | undefined;
  /** Output tokens spent reasoning. Default: `outputPerMTok`. */
  reasoningPerMTok?: number | undefined;
}

/**
 * Cost of one call in US dollars, or undefined when the model has no price or there is no usage.
 * Each kind of token is counted once, at its own price: of the input, the cache reads, the cache
 * writes and the rest; of the output, the reasoning and the rest. A kind's count is capped at the
 * total it is part of (an upstream reporting more cached than input tokens is not billed twice).
 */
export function costOf(usage: Usage | undefined, price: Price | undefined): number | undefined {
  if (!usage || !price) return undefined;
  const read = Math.min(usage.cacheReadTokens ?? 0, usage.inputTokens);
  const write = Math.min(usage.cacheWriteTokens ?? 0, usage.inputTokens - read);
  const plainInput = usage.inputTokens - read - write;
  const reasoning = Math.min(usage.reasoningTokens ?? 0, usage.outputTokens);
  const plainOutput = usage.outputTokens - reasoning;
  const micro =
    plainInput * price.inputPerMTok +
    read * (price.cachedInputPerMTok ?? price.inputPerMTok) +
    write * (price.cacheWritePerMTok ?? price.inputPerMTok) +
    plainOutput * price.outputPerMTok +
    reasoning * (price.reasoningPerMTok ?? price.outputPerMTok);
  return micro / 1_000_000;
}

/** The sum of two usages; a cache or reasoning count is present when either side has one. */
export function addUsage(a: Usage, b: Usage | undefined): Usage {
  if (!b) return a;
  const sum: Usage = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
  };
  const read = addCount(a.cacheReadTokens, b.cacheReadTokens);
  if (read !== undefined) sum.cacheReadTokens = read;
  const write = addCount(a.cacheWriteTokens, b.cacheWriteTokens);
  if (write !== undefined) sum.cacheWriteTokens = write;
  const reasoning = addCount(a.reasoningTokens, b.reasoningTokens);
  if (reasoning !== undefined) sum.reasoningTokens = reasoning;
  return sum;
}

const addCount = (a: number | undefined, b: number | undefined) =>
  a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
