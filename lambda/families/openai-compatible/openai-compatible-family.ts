import type { ProviderFamily } from '../provider-family.js';
import { currentKey } from '../shared/current-key.js';
import { createOpenAIChatModel } from './openai-chat-model.js';
import { type OpenAIProviderConfig, openAIProviderSchema } from './openai-compatible-config-schema.js';
import { OPENAI_COMPATIBLE_SIGNALS } from './openai-compatible-signals.js';

/** `type: "openai"`: any OpenAI-compatible endpoint (OpenAI, OpenRouter, Together, a fake); chat and embeddings. */
export const openAICompatibleFamily = {
  type: 'openai',
  schema: openAIProviderSchema,
  keyed: true,
  embeddings: true,
  capabilities: { prefill: false },
  signals: OPENAI_COMPATIBLE_SIGNALS,
  createModels:
    ({ access, limits }) =>
    (route) =>
      createOpenAIChatModel({
        key: route.key,
        provider: route.providerName,
        model: route.model,
        baseURL: route.provider.baseURL,
        apiKey: currentKey(route, access),
        connectMs: route.timeouts.connectMs,
        limits,
      }),
} as const satisfies ProviderFamily<OpenAIProviderConfig>;
