import { describe, expect, it } from 'vitest';
import { MESSAGES, MODEL, useFakeOpenAIClient } from '../../helpers/fake-openai-client.js';

const openai = useFakeOpenAIClient();
/** 40 words of one token each: the fake cuts it at max_tokens. */
const TEXT = 'tok '.repeat(40);

describe('OpenAI fake: an answer written at a token rate (tokensPerSec)', () => {
  it('sends a plain answer’s headers at once and its body when every token is written', async () => {
    // 20 tokens at 100 tokens/s: 200 ms of writing after the headers.
    openai.fake.script(MODEL, [{ text: TEXT, tokensPerSec: 100 }]);
    const started = Date.now();
    const { data, response } = await openai.client.chat.completions
      .create({ model: MODEL, messages: MESSAGES, max_tokens: 20 })
      .withResponse();
    expect(response.status).toBe(200);
    expect(data.usage?.completion_tokens).toBe(20);
    // A lower bound only: the fake can be late under load, never early.
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('spaces a stream’s chunks to the same rate', async () => {
    openai.fake.script(MODEL, [{ text: TEXT, tokensPerSec: 100 }]);
    const started = Date.now();
    const stream = await openai.client.chat.completions.create({
      model: MODEL,
      messages: MESSAGES,
      max_tokens: 20,
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text.trim().split(/\s+/)).toHaveLength(20);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('refuses a rate that is not positive, naming the field', async () => {
    expect(() => openai.fake.script(MODEL, [{ tokensPerSec: 0 }])).toThrow('tokensPerSec');
  });
});
