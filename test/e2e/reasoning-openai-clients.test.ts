/**
 * Reasoning through the chat completions door with openai-node over real HTTP: `reasoning_effort`
 * reaches each family in its own form, a DeepSeek-style upstream's `reasoning_content` comes back
 * on the message and in the stream, and the usage details (cached, reasoning tokens) come back in
 * OpenAI's shape and are priced per kind in the ledger and the day's spend of `GET /v1/usage`.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptLedgerEntry } from '../../lambda/core/ledger/ledger-entry.js';
import { bearer, type GatewayHarness, startGatewayHarness, waitFor } from '../helpers/gateway-harness.js';

let h: GatewayHarness;
afterEach(async () => {
  await h?.close();
});

const KINDS = { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5, reasoningPerMTok: 12 };
const ALICE = 'sk-alice-0123456789';
const REASONING = 'Seven times thirteen is ninety-one.';
/** Fields openai-node does not type: DeepSeek's `reasoning_content`, on messages and deltas. */
type WithReasoning = { reasoning_content?: string };

const start = (chain: string, extra: Parameters<typeof startGatewayHarness>[1] = {}) =>
  startGatewayHarness(
    { p: { chain } },
    {
      anthropic: true,
      ...extra,
      configure: (config) => {
        config.models.a = { ...config.models.a, price: KINDS };
        extra.configure?.(config);
      },
    },
  );

const ask = { model: 'p', messages: [{ role: 'user' as const, content: 'Is 91 prime?' }] };

describe('reasoning through the chat completions door with openai-node', () => {
  it('sends reasoning_effort and reads reasoning_content and the usage details back', async () => {
    h = await start('a');
    h.openai.script('model-a', [
      { reasoning: REASONING, reasoningTokens: 4, cacheReadTokens: 3, text: 'No.' },
    ]);
    const completion = await h.client.chat.completions.create({ ...ask, reasoning_effort: 'high' });
    expect(h.openai.requests[0]?.body).toMatchObject({ reasoning_effort: 'high' });
    const message = completion.choices[0]?.message as OpenAI.ChatCompletionMessage & WithReasoning;
    expect(message.content).toBe('No.');
    expect(message.reasoning_content).toBe(REASONING);
    expect(completion.usage?.prompt_tokens_details).toEqual({ cached_tokens: 3 });
    expect(completion.usage?.completion_tokens_details).toEqual({ reasoning_tokens: 4 });
  });

  it('streams reasoning_content deltas before the answer', async () => {
    h = await start('a');
    h.openai.script('model-a', [{ reasoning: REASONING, text: 'No.' }]);
    const stream = await h.client.chat.completions.create({ ...ask, stream: true });
    let reasoning = '';
    let text = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as
        | (OpenAI.ChatCompletionChunk.Choice.Delta & WithReasoning)
        | undefined;
      if (delta?.reasoning_content) {
        expect(text).toBe('');
        reasoning += delta.reasoning_content;
      }
      text += delta?.content ?? '';
    }
    expect(reasoning).toBe(REASONING);
    expect(text).toBe('No.');
  });

  it('turns reasoning_effort into an Anthropic thinking budget and answers the signed block as reasoning_details', async () => {
    h = await start('an');
    h.anthropic.script('claude-model', [{ reasoning: REASONING, text: 'No.' }, {}]);
    const completion = await h.client.chat.completions.create({
      ...ask,
      reasoning_effort: 'low',
      max_tokens: 4000,
    });
    expect(h.anthropic.requests[0]?.body).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 2048 },
    });
    const message = completion.choices[0]?.message as OpenAI.ChatCompletionMessage &
      WithReasoning & {
        reasoning_details?: unknown[];
      };
    expect(message.reasoning_content).toBe(REASONING);
    expect(message.reasoning_details).toEqual([
      { type: 'reasoning.text', text: REASONING, signature: 'sig_fake_0' },
    ]);

    // The client hands the message back as it came: the signed block reaches Anthropic unchanged.
    await h.client.chat.completions.create({
      model: 'p',
      messages: [
        ...ask.messages,
        message as OpenAI.ChatCompletionAssistantMessageParam,
        { role: 'user', content: 'Why?' },
      ],
    });
    expect(h.anthropic.requests[1]?.body).toMatchObject({
      messages: [
        { role: 'user' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: REASONING, signature: 'sig_fake_0' },
            { type: 'text', text: 'No.' },
          ],
        },
        { role: 'user' },
      ],
    });
  });

  it('prices cached input and reasoning at their own prices in the ledger and the key day spend', async () => {
    h = await start('a', {
      auth: { keys: { alice: ALICE } },
      configure: (config) => {
        config.admission = { keys: { alice: { usdPerDay: 1 } } };
      },
    });
    h.openai.script('model-a', [
      { reasoningTokens: 4, cacheReadTokens: 3, text: 'No, it is seven times thirteen.' },
    ]);
    const client = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: ALICE, maxRetries: 0 });
    const { usage } = await client.chat.completions.create(ask);
    const prompt = usage?.prompt_tokens ?? 0;
    const completion = usage?.completion_tokens ?? 0;
    await waitFor(() => h.requests().length === 1);
    const attempt = h.attempts()[0] as AttemptLedgerEntry;
    expect(attempt.usage).toEqual({
      inputTokens: prompt,
      outputTokens: completion,
      cacheReadTokens: 3,
      reasoningTokens: 4,
    });
    const expected = ((prompt - 3) * 2 + 3 * 0.5 + (completion - 4) * 8 + 4 * 12) / 1_000_000;
    expect(attempt.costUsd).toBeCloseTo(expected, 12);

    // The day's spend settles after the answer: read it until it holds the attempt's cost.
    const spentToday = async () => {
      const res = await fetch(`${h.url}/v1/usage`, { headers: bearer(ALICE) });
      const body = (await res.json()) as { data: { field: string; used: number }[] };
      return body.data.find((l) => l.field === 'admission.keys.alice.usdPerDay')?.used ?? 0;
    };
    let spent = await spentToday();
    for (let tries = 0; Math.abs(spent - expected) > 1e-9 && tries < 100; tries++) {
      await new Promise((r) => setTimeout(r, 20));
      spent = await spentToday();
    }
    expect(spent).toBeCloseTo(expected, 9);
  });
});
