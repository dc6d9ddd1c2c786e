/**
 * Thinking through the Messages door, driven by the official `@anthropic-ai/sdk` over real HTTP:
 * `messages.create` and `messages.stream` ask for thinking, get the signed block back, and hand it
 * back on the next turn; what the Anthropic and Bedrock fakes received proves it arrived unchanged
 * in each family's own form.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { type GatewayHarness, startGatewayHarness } from '../helpers/gateway-harness.js';

let h: GatewayHarness;
afterEach(async () => {
  await h?.close();
});

const client = () => new Anthropic({ baseURL: h.url, apiKey: 'caller-key', maxRetries: 0 });
const THINKING = { type: 'enabled' as const, budget_tokens: 2048 };
const ASK = {
  model: 'p',
  max_tokens: 4096,
  thinking: THINKING,
  messages: [{ role: 'user' as const, content: 'Is 91 prime?' }],
};
const REASONING = 'Try 7: 7 × 13 = 91, so no.';

/** The assistant turn of the last request a fake received. */
const assistantTurn = (body: unknown) =>
  (body as { messages: { role: string; content: unknown }[] }).messages.find((m) => m.role === 'assistant');

describe('thinking through the Messages door with the Anthropic SDK', () => {
  it('asks an Anthropic route for thinking, answers the signed block, and sends it back unchanged', async () => {
    h = await startGatewayHarness({ p: { chain: 'an' } }, { anthropic: true });
    h.anthropic.script('claude-model', [
      { reasoning: REASONING, text: 'No: 7 × 13.' },
      { text: 'You are welcome.' },
    ]);
    const first = await client().messages.create(ASK);
    expect(first.content).toEqual([
      { type: 'thinking', thinking: REASONING, signature: 'sig_fake_0' },
      { type: 'text', text: 'No: 7 × 13.' },
    ]);
    expect(h.anthropic.requests[0]?.body).toMatchObject({ thinking: THINKING, max_tokens: 4096 });

    await client().messages.create({
      ...ASK,
      messages: [
        ...ASK.messages,
        { role: 'assistant', content: first.content },
        { role: 'user', content: 'Thanks' },
      ],
    });
    expect(assistantTurn(h.anthropic.requests[1]?.body)).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: REASONING, signature: 'sig_fake_0' },
        { type: 'text', text: 'No: 7 × 13.' },
      ],
    });
  });

  it('asks a Bedrock route for thinking and sends its signed reasoning back as reasoningContent', async () => {
    h = await startGatewayHarness({ p: { chain: 'br' } });
    h.bedrock.script('bedrock-model', [{ reasoning: REASONING, text: 'No.' }, {}]);
    const first = await client().messages.create(ASK);
    expect(first.content[0]).toEqual({ type: 'thinking', thinking: REASONING, signature: 'sig_fake_0' });
    expect(h.bedrock.requests[0]?.body).toMatchObject({
      additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 2048 } },
    });

    await client().messages.create({
      ...ASK,
      messages: [
        ...ASK.messages,
        { role: 'assistant', content: first.content },
        { role: 'user', content: 'Sure?' },
      ],
    });
    expect(assistantTurn(h.bedrock.requests[1]?.body)).toEqual({
      role: 'assistant',
      content: [
        { reasoningContent: { reasoningText: { text: REASONING, signature: 'sig_fake_0' } } },
        { text: 'No.' },
      ],
    });
  });

  it.each([
    [
      'an Anthropic route',
      'an',
      (g: GatewayHarness) => g.anthropic.script('claude-model', [{ reasoning: REASONING }]),
    ],
    [
      'a Bedrock route',
      'br',
      (g: GatewayHarness) => g.bedrock.script('bedrock-model', [{ reasoning: REASONING }]),
    ],
  ])('streams the thinking block with its signature from %s', async (_label, chain, script) => {
    h = await startGatewayHarness({ p: { chain } }, { anthropic: true });
    script(h);
    const stream = client().messages.stream(ASK);
    const thoughts: string[] = [];
    stream.on('thinking', (delta) => thoughts.push(delta));
    const message = await stream.finalMessage();
    expect(thoughts.join('')).toBe(REASONING);
    expect(message.content[0]).toEqual({ type: 'thinking', thinking: REASONING, signature: 'sig_fake_0' });
    expect(message.content[1]).toMatchObject({ type: 'text' });
  });

  it('hands a streamed thinking block back to a Bedrock route after an Anthropic one answered', async () => {
    h = await startGatewayHarness({ p: { chain: 'an' }, q: { chain: 'br' } }, { anthropic: true });
    h.anthropic.script('claude-model', [{ reasoning: REASONING, text: 'No.' }]);
    const first = await client().messages.stream(ASK).finalMessage();
    await client().messages.create({
      ...ASK,
      model: 'q',
      messages: [
        ...ASK.messages,
        { role: 'assistant', content: first.content },
        { role: 'user', content: 'Why?' },
      ],
    });
    expect(assistantTurn(h.bedrock.requests[0]?.body)).toMatchObject({
      content: [
        { reasoningContent: { reasoningText: { text: REASONING, signature: 'sig_fake_0' } } },
        { text: 'No.' },
      ],
    });
  });

  it.each([
    ['an Anthropic route', 'an', { type: 'redacted_thinking', data: 'ENCRYPTED' }],
    [
      'a Bedrock route',
      'br',
      { reasoningContent: { redactedContent: Buffer.from('ENCRYPTED').toString('base64') } },
    ],
  ])(
    'hands a redacted thinking block back to %s as it came, streamed or not',
    async (_label, chain, expected) => {
      h = await startGatewayHarness({ p: { chain } }, { anthropic: true });
      const scripted = [{ redactedReasoning: 'ENCRYPTED' }, { redactedReasoning: 'ENCRYPTED' }, {}];
      if (chain === 'an') h.anthropic.script('claude-model', scripted);
      else h.bedrock.script('bedrock-model', scripted);
      const plain = await client().messages.create(ASK);
      const streamed = await client().messages.stream(ASK).finalMessage();
      expect(streamed.content[0]).toEqual(plain.content[0]);
      expect(plain.content[0]).toMatchObject({ type: 'redacted_thinking' });
      await client().messages.create({
        ...ASK,
        messages: [
          ...ASK.messages,
          { role: 'assistant', content: streamed.content },
          { role: 'user', content: 'And?' },
        ],
      });
      const fake = chain === 'an' ? h.anthropic : h.bedrock;
      const turn = assistantTurn(fake.requests[2]?.body) as { content: unknown[] };
      expect(turn.content[0]).toEqual(expected);
    },
  );
});
