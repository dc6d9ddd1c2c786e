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
  // Chat Completions: image_url parts (http(s) or data URLs), file parts (PDF as file_data), tools,
  // reasoning_effort, logprobs. A tool message takes text only; no cache breakpoints (OpenAI
  // caches by itself); a trailing assistant message is context, never continued.
  capabilities: {
    images: true,
    imageUrls: true,
    documents: true,
    documentUrls: false,
    toolResultMedia: false,
    tools: true,
    reasoning: true,
    caching: false,
    logprobs: true,
    prefill: false,
  },
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
