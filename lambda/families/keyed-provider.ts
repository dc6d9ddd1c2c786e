import type { ProviderConfig } from '../core/catalog/config-schema.js';

/** The provider types that authenticate with an API key (`apiKeyEnv` / `apiKeySecret`). */
export const KEYED_PROVIDER_TYPES = ['openai', 'anthropic', 'vertex'] as const;

/** A provider called with a key: OpenAI-compatible, Anthropic, or Vertex (its service-account JSON); Bedrock signs with IAM. */
export type KeyedProviderConfig = Extract<ProviderConfig, { type: (typeof KEYED_PROVIDER_TYPES)[number] }>;

/** True for a provider whose calls carry an API key; narrows to the types with key fields. */
export function isKeyedProvider(provider: ProviderConfig | undefined): provider is KeyedProviderConfig {
  return (KEYED_PROVIDER_TYPES as readonly string[]).includes(provider?.type ?? '');
}
