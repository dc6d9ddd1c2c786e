import type { ChatModel, ChatResult, ChatStreamEvent } from '../../lambda/core/chat/chat-model.js';
import { ProviderError } from '../../lambda/core/failures/provider-error.js';

const ANSWER: ChatResult = {
  content: 'ok',
  toolCalls: [],
  finishReason: 'stop',
  usage: { inputTokens: 10, outputTokens: 2 },
};

/**
 * A model that answers at once, so that a request's latency is the router plus the breaker
 * store. `rateLimited()` decides per call whether it answers 429 instead.
 */
export function instantModel(key: string, rateLimited: () => boolean = () => false): ChatModel {
  const run = async (): Promise<ChatResult> => {
    if (rateLimited()) {
      throw new ProviderError({
        provider: 'bench',
        model: key,
        failureClass: 'rate_limited',
        status: 429,
        message: 'bench 429',
      });
    }
    return ANSWER;
  };
  return {
    key,
    provider: 'bench',
    generate: () => run(),
    async *stream(): AsyncIterable<ChatStreamEvent> {
      const result = await run();
      yield { type: 'finish', finishReason: result.finishReason, usage: result.usage };
    },
  };
}
