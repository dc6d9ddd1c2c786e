import { describe, expect, it } from 'vitest';
import { dearestPrice, estimateReservation } from '../../../lambda/core/admission/reservation-estimate.js';
import type { Usage } from '../../../lambda/core/chat/chat-model.js';
import { addUsage, costOf, type Price } from '../../../lambda/core/ledger/cost.js';

/** Claude-like prices: cache reads a tenth, cache writes 1.25 × input. */
const CLAUDE: Price = {
  inputPerMTok: 3,
  outputPerMTok: 15,
  cachedInputPerMTok: 0.3,
  cacheWritePerMTok: 3.75,
};

describe('cost per kind of token', () => {
  it('bills plain input and output at their prices', () => {
    expect(costOf({ inputTokens: 1_000_000, outputTokens: 1_000_000 }, CLAUDE)).toBe(18);
  });

  it('bills cache reads and writes at their own prices and only the rest at the input price', () => {
    // 1M input: 600k read (0.18 $), 300k written (1.125 $), 100k plain (0.3 $); 200k output (3 $).
    const usage: Usage = {
      inputTokens: 1_000_000,
      outputTokens: 200_000,
      cacheReadTokens: 600_000,
      cacheWriteTokens: 300_000,
    };
    expect(costOf(usage, CLAUDE)).toBeCloseTo(0.18 + 1.125 + 0.3 + 3, 12);
  });

  it('bills cache tokens at the input price when the catalog gives them no price', () => {
    const usage: Usage = { inputTokens: 1_000, outputTokens: 0, cacheReadTokens: 400, cacheWriteTokens: 100 };
    expect(costOf(usage, { inputPerMTok: 2, outputPerMTok: 8 })).toBe(0.002);
  });

  it('bills reasoning as output unless it has a price of its own', () => {
    const usage: Usage = { inputTokens: 0, outputTokens: 1_000_000, reasoningTokens: 250_000 };
    expect(costOf(usage, { inputPerMTok: 1, outputPerMTok: 4 })).toBe(4);
    expect(costOf(usage, { inputPerMTok: 1, outputPerMTok: 4, reasoningPerMTok: 2 })).toBe(3.5);
  });

  it('never bills a kind beyond the total it is part of', () => {
    // 10 cached of 8 input: all 8 at the cached price; 5 reasoning of 3 output: all 3 at the reasoning price.
    const usage: Usage = {
      inputTokens: 8,
      outputTokens: 3,
      cacheReadTokens: 10,
      cacheWriteTokens: 4,
      reasoningTokens: 5,
    };
    const price: Price = {
      inputPerMTok: 100,
      outputPerMTok: 100,
      cachedInputPerMTok: 1,
      cacheWritePerMTok: 1000,
      reasoningPerMTok: 10,
    };
    expect(costOf(usage, price)).toBe((8 * 1 + 3 * 10) / 1_000_000);
  });

  it('has no cost without a price or a usage', () => {
    expect(costOf(undefined, CLAUDE)).toBeUndefined();
    expect(costOf({ inputTokens: 1, outputTokens: 1 }, undefined)).toBeUndefined();
  });

  it('adds cache and reasoning counts: present when either side has one, absent when neither has', () => {
    const plain = { inputTokens: 1, outputTokens: 2 };
    expect(
      addUsage(plain, {
        inputTokens: 3,
        outputTokens: 4,
        cacheReadTokens: 1,
        cacheWriteTokens: 2,
        reasoningTokens: 3,
      }),
    ).toStrictEqual({
      inputTokens: 4,
      outputTokens: 6,
      cacheReadTokens: 1,
      cacheWriteTokens: 2,
      reasoningTokens: 3,
    });
    expect(
      addUsage(
        { ...plain, cacheReadTokens: 5, cacheWriteTokens: 6, reasoningTokens: 7 },
        { inputTokens: 3, outputTokens: 4 },
      ),
    ).toStrictEqual({
      inputTokens: 4,
      outputTokens: 6,
      cacheReadTokens: 5,
      cacheWriteTokens: 6,
      reasoningTokens: 7,
    });
    expect(addUsage(plain, { inputTokens: 3, outputTokens: 4 })).toStrictEqual({
      inputTokens: 4,
      outputTokens: 6,
    });
  });

  it('keeps a usage as it is when there is nothing to add', () => {
    const usage = { inputTokens: 1, outputTokens: 2, reasoningTokens: 1 };
    expect(addUsage(usage, undefined)).toBe(usage);
  });
});

describe('the reservation of a request with priced kinds', () => {
  it('reserves input at the cache-write price and output at the reasoning price when those are dearer', () => {
    const worst = dearestPrice([CLAUDE, { inputPerMTok: 1, outputPerMTok: 10, reasoningPerMTok: 20 }]);
    expect(worst).toEqual({ inputPerMTok: 3.75, outputPerMTok: 20 });
    // 4 000 chars at 4 a token = 1 000 input tokens; 1 000 output tokens.
    expect(estimateReservation({ inputChars: 4_000, maxOutputTokens: 1_000, price: worst }, 4).costNano).toBe(
      23_750_000,
    );
  });
});
