import { describe, expect, it } from 'vitest';
import {
  EFFORT_BUDGET_TOKENS,
  reasoningBudget,
  reasoningEffort,
} from '../../../lambda/core/chat/reasoning-budget.js';

describe('reasoning effort and budget on one scale', () => {
  it.each([
    [1024, 'low'],
    [4095, 'low'],
    [4096, 'medium'],
    [16383, 'medium'],
    [16384, 'high'],
    [64000, 'high'],
  ] as const)('reads a budget of %i tokens as %s effort', (budgetTokens, effort) => {
    expect(reasoningEffort({ budgetTokens })).toBe(effort);
  });

  it('keeps an effort the request states, whatever its budget', () => {
    expect(reasoningEffort({ effort: 'minimal', budgetTokens: 30_000 })).toBe('minimal');
  });

  it.each(Object.entries(EFFORT_BUDGET_TOKENS))('gives %s effort a budget of %i tokens', (effort, budget) => {
    expect(reasoningBudget({ effort: effort as 'low' }, undefined)).toBe(budget);
  });

  it('round-trips low, medium and high; minimal comes back as low', () => {
    for (const effort of ['low', 'medium', 'high'] as const) {
      expect(reasoningEffort({ budgetTokens: reasoningBudget({ effort }, undefined) })).toBe(effort);
    }
    expect(reasoningEffort({ budgetTokens: reasoningBudget({ effort: 'minimal' }, undefined) })).toBe('low');
  });

  it('keeps an effort budget below max_tokens, but never under 1024', () => {
    expect(reasoningBudget({ effort: 'low' }, 100_000)).toBe(2048);
    expect(reasoningBudget({ effort: 'high' }, 16385)).toBe(16384);
    expect(reasoningBudget({ effort: 'high' }, 16384)).toBe(16383);
    expect(reasoningBudget({ effort: 'high' }, 1025)).toBe(1024);
    expect(reasoningBudget({ effort: 'high' }, 600)).toBe(1024);
  });

  it('sends a stated budget as asked', () => {
    expect(reasoningBudget({ budgetTokens: 5000, effort: 'low' }, 100)).toBe(5000);
  });

  it('asks for nothing when the request asks for no reasoning', () => {
    expect(reasoningBudget(undefined, 100)).toBeUndefined();
    expect(reasoningBudget({}, 100)).toBeUndefined();
    expect(reasoningEffort(undefined)).toBeUndefined();
    expect(reasoningEffort({})).toBeUndefined();
  });
});
