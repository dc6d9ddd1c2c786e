import { lazyChatModel } from '../lazy-chat-model.js';
import type { ProviderFamily } from '../provider-family.js';
import { currentKey } from '../shared/current-key.js';
import { type AnthropicProviderConfig, anthropicProviderSchema } from './anthropic-config-schema.js';
import { ANTHROPIC_SIGNALS } from './anthropic-signals.js';

/** `type: "anthropic"`: the Anthropic Messages API with an API key; chat only. */
export const anthropicFamily = {
  type: 'anthropic',
  schema: anthropicProviderSchema,
  keyed: true,
  embeddings: false,
  // Messages API: image and document blocks (base64 or url source), media in tool_result, tools,
  // thinking, cache_control, a trailing assistant message continued (prefill); no log probabilities.
  capabilities: {
    images: true,
    imageUrls: true,
    documents: true,
    documentUrls: true,
    toolResultMedia: true,
    tools: true,
    reasoning: true,
    caching: true,
    logprobs: false,
    prefill: true,
  },
  signals: ANTHROPIC_SIGNALS,
  createModels:
    ({ access, limits }) =>
    (route) =>
      // The adapter and the Anthropic SDK load on the route's first call (a chunk of the Lambda bundle).
      lazyChatModel({ key: route.key, provider: route.providerName, countTokens: true }, async () =>
        (await import('./anthropic-chat-model.js')).createAnthropicChatModel({
          key: route.key,
          provider: route.providerName,
          model: route.model,
          baseURL: route.provider.baseURL,
          apiKey: currentKey(route, access),
          // The provider's default, never more than the model may give.
          defaultMaxTokens: Math.min(
            route.provider.maxTokens,
            route.maxOutputTokens ?? route.provider.maxTokens,
          ),
          connectMs: route.timeouts.connectMs,
          limits,
        }),
      ),
} as const satisfies ProviderFamily<AnthropicProviderConfig>;
