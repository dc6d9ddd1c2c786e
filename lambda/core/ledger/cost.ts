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

export function addUsage(a: Usage, b: Usage | undefined): Usage {
  if (!b) return a;
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens };
}
