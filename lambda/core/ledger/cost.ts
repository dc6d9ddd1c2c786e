import type { Usage } from '../chat/chat-model.js';

/** Catalog price of a model in US dollars per million tokens. */
export interface Price {
  inputPerMTok: number;
  outputPerMTok: number;
}

/** Cost of one call in US dollars, or undefined when the model has no price or there is no usage. */
export function costOf(usage: Usage | undefined, price: Price | undefined): number | undefined {
  if (!usage || !price) return undefined;
  return (usage.inputTokens * price.inputPerMTok + usage.outputTokens * price.outputPerMTok) / 1_000_000;
}

/** The sum of two usages; a cache count is present when either side has one. */
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
  return sum;
}

const addCount = (a: number | undefined, b: number | undefined) =>
  a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
