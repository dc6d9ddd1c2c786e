/**
 * Prompt caching end to end over real HTTP: `cache_control` from the Anthropic SDK and from an
 * OpenRouter-style OpenAI client arrives as `cache_control` at the Anthropic fake and as
 * `cachePoint` at the Bedrock fake; the cached and cache-write counts come back in each door's
 * usage shape, and the ledger prices each kind of token at its own catalog price.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptLedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { type GatewayHarness, startGatewayHarness, waitFor } from '../helpers/gateway-harness.js';

let h: GatewayHarness;
afterEach(async () => {
  await h?.close();
});

/** A price with every kind: cache reads a tenth of input, writes 1.25 ×, reasoning dearer than output. */
const KINDS = {
  inputPerMTok: 2,
  outputPerMTok: 8,
  cachedInputPerMTok: 0.2,
  cacheWritePerMTok: 2.5,
  reasoningPerMTok: 10,
};
const priced = (config: { models: Record<string, object> }) => {
  for (const key of ['a', 'br', 'an']) config.models[key] = { ...config.models[key], price: KINDS };
};
const start = (chain: string) =>
  startGatewayHarness({ p: { chain } }, { anthropic: true, configure: priced });

const anthropic = () => new Anthropic({ baseURL: h.url, apiKey: 'caller-key', maxRetries: 0 });
/** 4 000 characters: 1 000 prompt tokens at the fakes' 4 characters a token. */
const RULES = 'r'.repeat(4_000);
const EPHEMERAL = { type: 'ephemeral' as const };
const LOOKUP = { name: 'lookup', input_schema: { type: 'object' as const }, cache_control: EPHEMERAL };
const CACHED_ASK = {
  model: 'p',
  max_tokens: 100,
  system: [
    { type: 'text' as const, text: RULES, cache_control: EPHEMERAL },
    { type: 'text' as const, text: 'Be brief.' },
  ],
  tools: [LOOKUP],
  messages: [
    { role: 'user' as const, content: [{ type: 'text' as const, text: 'Hello', cache_control: EPHEMERAL }] },
  ],
};

const lastAttempt = async (): Promise<AttemptLedgerEntry> => {
  await waitFor(() => h.requests().length === 1);
  return h.attempts().at(-1) as AttemptLedgerEntry;
};

describe('prompt caching through the Messages door', () => {
  it('carries cache_control to an Anthropic route in place, and reports and prices its cache counts', async () => {
    h = await start('an');
    h.anthropic.script('claude-model', [{ cacheReadTokens: 600, cacheWriteTokens: 300 }]);
    const message = await anthropic().messages.create(CACHED_ASK);
    expect(h.anthropic.requests[0]?.body).toMatchObject({
      system: [
        { type: 'text', text: RULES, cache_control: EPHEMERAL },
        { type: 'text', text: 'Be brief.' },
      ],
      tools: [{ name: 'lookup', cache_control: EPHEMERAL }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello', cache_control: EPHEMERAL }] }],
    });
    const { input_tokens, cache_read_input_tokens, cache_creation_input_tokens, output_tokens } =
      message.usage;
    expect({ cache_read_input_tokens, cache_creation_input_tokens }).toEqual({
      cache_read_input_tokens: 600,
      cache_creation_input_tokens: 300,
    });
    const attempt = await lastAttempt();
    expect(attempt.usage).toEqual({
      inputTokens: input_tokens + 900,
      outputTokens: output_tokens,
      cacheReadTokens: 600,
      cacheWriteTokens: 300,
    });
    // 600 read at 0.2, 300 written at 2.5, the rest of the input at 2, the output at 8 ($ per MTok).
    const expected = (600 * 0.2 + 300 * 2.5 + input_tokens * 2 + output_tokens * 8) / 1_000_000;
    expect(attempt.costUsd).toBeCloseTo(expected, 12);
    expect(attempt.costUsd).toBeLessThan(((input_tokens + 900) * 2 + output_tokens * 8) / 1_000_000);
  });

  it('carries cache_control to a Bedrock route as cachePoint blocks, and reports its cache counts', async () => {
    h = await start('br');
    h.bedrock.script('bedrock-model', [{ cacheReadTokens: 700, cacheWriteTokens: 200 }]);
    const message = await anthropic().messages.create(CACHED_ASK);
    const body = h.bedrock.requests[0]?.body as Record<string, unknown>;
    expect(body.system).toEqual([
      { text: RULES },
      { cachePoint: { type: 'default' } },
      { text: 'Be brief.' },
    ]);
    expect(body.toolConfig).toMatchObject({
      tools: [{ toolSpec: { name: 'lookup' } }, { cachePoint: { type: 'default' } }],
    });
    expect(body.messages).toEqual([
      { role: 'user', content: [{ text: 'Hello' }, { cachePoint: { type: 'default' } }] },
    ]);
    expect(message.usage).toMatchObject({ cache_read_input_tokens: 700, cache_creation_input_tokens: 200 });
    const attempt = await lastAttempt();
    expect(attempt.usage).toMatchObject({ cacheReadTokens: 700, cacheWriteTokens: 200 });
  });
});

describe('prompt caching through the chat completions door', () => {
  /** An OpenRouter-style request: `cache_control` on a system content part and on a user message. */
  const CACHED_CHAT = {
    model: 'p',
    messages: [
      { role: 'system', content: [{ type: 'text', text: RULES, cache_control: EPHEMERAL }] },
      { role: 'user', content: 'Hello', cache_control: { type: 'ephemeral', ttl: '1h' } },
    ],
  };

  it('carries cache_control on parts and messages to an Anthropic route', async () => {
    h = await start('an');
    const res = await h.post(CACHED_CHAT);
    expect(res.status).toBe(200);
    expect(h.anthropic.requests[0]?.body).toMatchObject({
      system: [{ type: 'text', text: RULES, cache_control: EPHEMERAL }],
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: 'Hello', cache_control: { type: 'ephemeral', ttl: '1h' } }],
        },
      ],
    });
  });

  it('carries them to a Bedrock route as cachePoint blocks', async () => {
    h = await start('br');
    expect((await h.post(CACHED_CHAT)).status).toBe(200);
    expect(h.bedrock.requests[0]?.body).toMatchObject({
      system: [{ text: RULES }, { cachePoint: { type: 'default' } }],
      messages: [
        { role: 'user', content: [{ text: 'Hello' }, { cachePoint: { type: 'default', ttl: '1h' } }] },
      ],
    });
  });

  it('reports an Anthropic route cache counts as prompt_tokens_details, all inside prompt_tokens', async () => {
    h = await start('an');
    h.anthropic.script('claude-model', [{ cacheReadTokens: 600, cacheWriteTokens: 300 }]);
    const body = (await (await h.post(CACHED_CHAT)).json()) as { usage: Record<string, unknown> };
    const attempt = await lastAttempt();
    expect(body.usage).toEqual({
      prompt_tokens: attempt.usage?.inputTokens,
      completion_tokens: attempt.usage?.outputTokens,
      total_tokens: (attempt.usage?.inputTokens ?? 0) + (attempt.usage?.outputTokens ?? 0),
      prompt_tokens_details: { cached_tokens: 600, cache_write_tokens: 300 },
    });
  });

  it('refuses a cache_control that is not ephemeral, naming the field', async () => {
    h = await start('an');
    const res = await h.post({
      model: 'p',
      messages: [{ role: 'user', content: 'x', cache_control: { type: 'forever' } }],
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain(
      'messages[0].cache_control',
    );
    expect(h.received('claude-model')).toBe(0);
  });
});
