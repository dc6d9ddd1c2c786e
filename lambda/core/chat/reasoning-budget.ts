/**
 * One scale between the two ways families ask for reasoning: an effort level (OpenAI-compatible
 * `reasoning_effort`, Bedrock Nova's `maxReasoningEffort`) and a token budget (Anthropic and
 * Bedrock Claude `budget_tokens`). A request may say either; each family reads the one it speaks.
 *
 * | effort  | budget tokens | a budget of … reads as |
 * |---------|---------------|------------------------|
 * | minimal | 1024          | —                      |
 * | low     | 2048          | under 4096             |
 * | medium  | 8192          | 4096 to 16383          |
 * | high    | 16384         | 16384 and more         |
 *
 * `minimal` is the smallest budget a token-budget family accepts (1024); a budget never reads as
 * `minimal`, since only some effort models take it. The round trip keeps `low`, `medium` and
 * `high`; `minimal` comes back as `low`.
 */
import type { ReasoningRequest } from './chat-model.js';

type Effort = NonNullable<ReasoningRequest['effort']>;

/** Token budget of each effort level. */
export const EFFORT_BUDGET_TOKENS: Readonly<Record<Effort, number>> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
};

/** The smallest reasoning budget, in tokens, the token-budget families accept. */
export const MIN_BUDGET_TOKENS = 1024;

/** Budgets below this read as `low`; from it up to `HIGH_FROM` (exclusive) as `medium`. */
const MEDIUM_FROM = 4096;
/** Budgets from this many tokens on read as `high`. */
const HIGH_FROM = 16384;

/** The effort a request asks for: its own, else the level of its budget. Undefined when it asks for neither. */
export function reasoningEffort(reasoning: ReasoningRequest | undefined): Effort | undefined {
  if (reasoning?.effort !== undefined) return reasoning.effort;
  const budget = reasoning?.budgetTokens;
  if (budget === undefined) return undefined;
  if (budget >= HIGH_FROM) return 'high';
  return budget >= MEDIUM_FROM ? 'medium' : 'low';
}

/**
 * The token budget a request asks for: its own (sent as asked), else its effort's budget, kept
 * below `maxTokens` when that is known (a budget must leave room for the answer) but never under
 * {@link MIN_BUDGET_TOKENS}. Undefined when it asks for neither.
 */
export function reasoningBudget(
  reasoning: ReasoningRequest | undefined,
  maxTokens: number | undefined,
): number | undefined {
  if (reasoning?.budgetTokens !== undefined) return reasoning.budgetTokens;
  if (reasoning?.effort === undefined) return undefined;
  const budget = EFFORT_BUDGET_TOKENS[reasoning.effort];
  if (maxTokens === undefined || budget < maxTokens) return budget;
  return Math.max(MIN_BUDGET_TOKENS, maxTokens - 1);
}
