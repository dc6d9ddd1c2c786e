import { describe, expect, it } from 'vitest';
import {
  estimatePromptTokens,
  estimateTokens,
  promptChars,
} from '../../../lambda/core/chat/token-estimate.js';
import { interruptedUsage } from '../../../lambda/core/ledger/interrupted-usage.js';

describe('token estimate', () => {
  it.each([
    [0, 0],
    [1, 1],
    [4, 1],
    [5, 2],
    [8, 2],
  ])('%i characters are %i tokens at 4 a token', (chars, tokens) => {
    expect(estimateTokens(chars)).toBe(tokens);
  });

  it('counts message text and assistant tool calls, not tool definitions', () => {
    const chat = {
      messages: [
        { role: 'system' as const, content: 'be brief' },
        { role: 'user' as const, content: 'hi' },
        { role: 'assistant' as const, content: null, toolCalls: [{ id: 'x', name: 'f', arguments: '{}' }] },
        { role: 'tool' as const, content: 'ok', toolCallId: 'x' },
      ],
    };
    expect(promptChars(chat)).toBe(8 + 2 + 3 + 2);
    expect(estimatePromptTokens(chat)).toBe(4);
    expect(estimatePromptTokens(chat, 3)).toBe(5);
  });
});

describe('usage of an interrupted stream', () => {
  it('bills the prompt the upstream reported, else the estimate, and the output the caller received', () => {
    expect(interruptedUsage({ reportedInputTokens: 12, promptEstimate: 30, outputChars: 9 })).toEqual({
      inputTokens: 12,
      outputTokens: 3,
    });
    expect(interruptedUsage({ promptEstimate: 30, outputChars: 0 })).toEqual({
      inputTokens: 30,
      outputTokens: 0,
    });
  });
});
