import type { ProviderFamily } from '../provider-family.js';
import { createVertexChatModel } from './vertex-chat-model.js';
import { type VertexProviderConfig, vertexBaseURL, vertexProviderSchema } from './vertex-config-schema.js';
import { VERTEX_SIGNALS } from './vertex-signals.js';
import { createVertexTokens, type VertexTokens } from './vertex-tokens.js';

/**
 * `type: "vertex"`: Gemini on Vertex AI's OpenAI-compatible endpoint, with OAuth access tokens
 * minted from a service-account key (its "key"); chat and embeddings.
 */
export const vertexFamily = {
  type: 'vertex',
  schema: vertexProviderSchema,
  keyed: true,
  embeddings: true,
  capabilities: { prefill: false },
  signals: VERTEX_SIGNALS,
  createModels: ({ access, clock, limits }) => {
    // One token cache per provider, shared by all its models: one mint serves every route.
    const byProvider = new Map<string, VertexTokens>();
    const tokensOf = (providerName: string, provider: VertexProviderConfig): VertexTokens => {
      let tokens = byProvider.get(providerName);
      if (!tokens) {
        tokens = createVertexTokens({
          provider: providerName,
          credentials: () => access.apiKey(providerName),
          hint: () => access.keyHint(providerName),
          callerHint: () => access.callerHint?.(providerName),
          refreshBeforeExpiryMs: provider.refreshBeforeExpiryMs,
          tokenTimeoutMs: provider.tokenTimeoutMs,
          clock,
        });
        byProvider.set(providerName, tokens);
      }
      return tokens;
    };
    return (route) =>
      createVertexChatModel({
        key: route.key,
        provider: route.providerName,
        model: route.model,
        baseURL: vertexBaseURL(route.provider),
        tokens: tokensOf(route.providerName, route.provider),
        connectMs: route.timeouts.connectMs,
        limits,
      });
  },
} as const satisfies ProviderFamily<VertexProviderConfig>;
