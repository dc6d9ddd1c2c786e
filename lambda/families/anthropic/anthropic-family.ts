import type { ProviderFamily } from '../provider-family.js';
import { currentKey } from '../shared/current-key.js';
import { createAnthropicChatModel } from './anthropic-chat-model.js';
import { type AnthropicProviderConfig, anthropicProviderSchema } from './anthropic-config-schema.js';
import { ANTHROPIC_SIGNALS } from './anthropic-signals.js';

/** `type: "anthropic"`: the Anthropic Messages API with an API key; chat only. */
export const anthropicFamily = {
  type: 'anthropic',
  schema: anthropicProviderSchema,
  keyed: true,
  embeddings: false,
  capabilities: { prefill: true },
  signals: ANTHROPIC_SIGNALS,
  createModels:
    ({ access, limits }) =>
    (route) =>
      createAnthropicChatModel({
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
} as const satisfies ProviderFamily<AnthropicProviderConfig>;
