import { describe, expect, it } from 'vitest';
import { messagesDemand } from '../../../lambda/doors/anthropic-messages/messages-request-schema.js';
import { embeddingsDemand } from '../../../lambda/doors/embeddings/embeddings-request-schema.js';
import { chatCompletionDemand } from '../../../lambda/doors/openai-chat/chat-request-schema.js';

const messages = [{ role: 'user' as const, content: 'hi' }];
const chars = JSON.stringify(messages).length;

describe('what each door says a request asks', () => {
  it('a chat completion prefers max_completion_tokens over max_tokens and names the field it took', () => {
    expect(chatCompletionDemand({ messages, max_tokens: 9_999, max_completion_tokens: 10 })).toEqual({
      messages: 1,
      inputChars: chars,
      maxTokens: 10,
      output: { tokens: 10, param: 'max_completion_tokens' },
    });
    expect(chatCompletionDemand({ messages, max_tokens: 7, max_completion_tokens: null }).output).toEqual({
      tokens: 7,
      param: 'max_tokens',
    });
  });

  it('a chat completion without an output bound leaves the reservation to the chain', () => {
    expect(chatCompletionDemand({ messages })).toEqual({
      messages: 1,
      inputChars: chars,
      maxTokens: undefined,
      output: undefined,
    });
  });

  it('a Messages request counts its system text as input and its max_tokens as the bound', () => {
    const body = { messages, system: 'be brief', max_tokens: 64 };
    expect(messagesDemand(body)).toEqual({
      messages: 1,
      inputChars: chars + JSON.stringify('be brief').length,
      maxTokens: 64,
      output: { tokens: 64, param: 'max_tokens' },
    });
  });

  it('an embeddings request reserves its input and no output, and has no message count', () => {
    expect(embeddingsDemand({ input: ['a', 'b'] })).toEqual({
      inputChars: JSON.stringify(['a', 'b']).length,
      maxTokens: 0,
    });
  });
});
