import type { SwitchyardConfig } from '../core/catalog/config-schema.js';
import type { Logger } from '../core/logger.js';
import type { ProviderAccess } from '../providers/create-chat-models.js';
import { createNodeHttpFetch } from '../providers/shared/node-http-fetch.js';

/** True when `apiKeySecret` names an SSM parameter rather than a Secrets Manager secret. */
export const isSsmName = (name: string) => name.startsWith('/');

/**
 * Fetches every provider key named in the config once (per Lambda container), in parallel. A key
 * that cannot be read is logged by provider name and left out: that provider's models then fail
 * fast as `upstream_auth`, and the chain falls back to the others.
 */
export async function loadProviderKeys(
  config: SwitchyardConfig,
  /** Reads a secret by name: `/…` is an SSM SecureString, anything else a Secrets Manager secret. */
  readSecret: (name: string) => Promise<string | undefined>,
  log: Logger,
): Promise<ProviderAccess> {
  const keys = new Map<string, string>();
  await Promise.all(
    Object.entries(config.providers).map(async ([name, provider]) => {
      if (provider.type !== 'openai' || provider.apiKeySecret === undefined) return;
      const secret = provider.apiKeySecret;
      try {
        const value = await readSecret(secret);
        if (value?.trim()) keys.set(name, value.trim());
        else log.error('provider key is empty', { provider: name, secret });
      } catch (error) {
        log.error('cannot read provider key', {
          provider: name,
          secret,
          error: error instanceof Error ? error.name : 'unknown',
        });
      }
    }),
  );
  return {
    // The same keep-alive node:http fetch as the local gateway: far cheaper per call than the global one.
    fetch: createNodeHttpFetch(),
    apiKey(name) {
      const provider = config.providers[name];
      if (provider?.type !== 'openai') return undefined;
      if (provider.apiKeySecret === undefined && provider.apiKeyEnv === undefined) return 'not-needed';
      return keys.get(name);
    },
    keyHint(name) {
      const provider = config.providers[name];
      return provider?.type === 'openai' && provider.apiKeySecret
        ? provider.apiKeySecret
        : `providers.${name}.apiKeySecret`;
    },
  };
}
