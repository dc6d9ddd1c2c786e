import { describe, expect, it } from 'vitest';
import { limitsSchema } from '../../../lambda/core/catalog/config-schema.js';
import {
  checkMessageCount,
  checkOutputTokens,
  DEFAULT_REQUEST_BOUNDS,
  echoable,
} from '../../../lambda/core/chat/request-bounds.js';
import type { Tier } from '../../../lambda/core/dsl/types.js';

const bounds = limitsSchema.parse({ maxMessages: 3, maxOutputTokens: 1_000 });
const tiers: Tier[] = [
  {
    members: [
      { key: 'big', weight: 1 },
      { key: 'plain', weight: 1 },
    ],
  },
  { members: [{ key: 'small', weight: 1 }] },
];
const limits: Record<string, number> = { big: 100_000, small: 500 };
const limitOf = (key: string) => limits[key];
const output = (tokens: number, param = 'max_tokens') => ({ output: { tokens, param } });

describe('request bounds', () => {
  it('are 1000 messages, 32768 output tokens, 128 echoed characters and 64 levels of JSON unless the config says otherwise', () => {
    expect(DEFAULT_REQUEST_BOUNDS).toEqual({
      maxMessages: 1_000,
      maxOutputTokens: 32_768,
      maxEchoChars: 128,
      maxJsonDepth: 64,
      // The bounds on upstream reads live in the same section (providers/shared/answer-limits.ts).
      maxUpstreamBodyBytes: 8_388_608,
      maxUpstreamEventBytes: 1_048_576,
    });
    expect(limitsSchema.parse({ maxMessages: 3 })).toEqual({ ...DEFAULT_REQUEST_BOUNDS, maxMessages: 3 });
  });

  it('takes exactly maxMessages messages and refuses one more, naming the field and the limit', () => {
    expect(checkMessageCount({ messages: 3 }, bounds)).toBeUndefined();
    expect(checkMessageCount({ messages: 4 }, bounds)).toEqual({
      param: 'messages',
      message: 'messages: at most 3 messages per request, got 4',
    });
  });

  it("bounds max_tokens by the smallest limit of the chain's models", () => {
    expect(checkOutputTokens(output(500), tiers, limitOf, bounds)).toBeUndefined();
    expect(checkOutputTokens(output(501), tiers, limitOf, bounds)).toEqual({
      param: 'max_tokens',
      message: "max_tokens: at most 500 (the limit of model 'small'), got 501",
    });
  });

  it('uses the default bound for models without their own limit', () => {
    const plainOnly: Tier[] = [{ members: [{ key: 'plain', weight: 1 }] }];
    expect(checkOutputTokens(output(1_000), plainOnly, limitOf, bounds)).toBeUndefined();
    expect(checkOutputTokens(output(1_001, 'max_completion_tokens'), plainOnly, limitOf, bounds)).toEqual({
      param: 'max_completion_tokens',
      message: 'max_completion_tokens: at most 1000 (the gateway limit), got 1001',
    });
  });

  it('checks nothing when the caller set no output bound, and no message count on a request without messages', () => {
    expect(checkOutputTokens({}, tiers, limitOf, bounds)).toBeUndefined();
    expect(checkMessageCount({}, bounds)).toBeUndefined();
  });

  it('cuts a long echo and marks the cut', () => {
    expect(echoable('abcd', 4)).toBe('abcd');
    expect(echoable('abcde', 4)).toBe('abcd…');
  });
});
