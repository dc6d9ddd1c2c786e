import type { SwitchyardConfig } from '../core/catalog/config-schema.js';
import { isKeyedProvider } from '../core/catalog/keyed-provider.js';
import type { ProviderAccess } from '../providers/create-chat-models.js';

/**
 * Provider keys from the environment (`apiKeyEnv`), read from `env` at every attempt: a variable
 * set later (in the same `env` object) is used by the next attempt. A provider that names no key
 * at all (a local fake, a self-hosted server) is called with a placeholder; one whose variable is
 * unset or blank, or that names only an `apiKeySecret` (a key for the AWS deployment), has no key
 * here, so its models fail at once as `not_configured` (the chain falls back, no breaker sample,
 * no alert) instead of sending an empty credential.
 *
 * OpenAI-compatible calls go through the process's keep-alive `node:http` agents
 * (`providers/openai/http-transport.ts`): per request a fraction of the CPU of the global `fetch`
 * (`bench/overhead`).
 */
export function envProviderAccess(config: SwitchyardConfig, env: NodeJS.ProcessEnv): ProviderAccess {
  return {
    apiKey(providerName) {
      const provider = config.providers[providerName];
      if (!isKeyedProvider(provider)) return undefined;
      if (provider.apiKeyEnv === undefined)
        return provider.apiKeySecret === undefined ? 'not-needed' : undefined;
      const value = env[provider.apiKeyEnv]?.trim();
      return value ? value : undefined;
    },
    keyHint(providerName) {
      const provider = config.providers[providerName];
      return isKeyedProvider(provider) && provider.apiKeyEnv
        ? provider.apiKeyEnv
        : `providers.${providerName}.apiKeyEnv`;
    },
  };
}
