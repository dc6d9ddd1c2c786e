import { readFileSync } from 'node:fs';
import type { SwitchyardConfig } from '../config/switchyard-config.js';
import { isKeyedProvider } from '../families/capabilities.js';
import type { ProviderAccess } from '../families/create-route-models.js';

/**
 * Provider keys from the environment (`apiKeyEnv`), read from `env` at every attempt: a variable
 * set later (in the same `env` object) is used by the next attempt. A provider that names no key
 * at all (a local fake, a self-hosted server) is called with a placeholder; one whose variable is
 * unset or blank, or that names only an `apiKeySecret` (a key for the AWS deployment), has no key
 * here, so its models fail at once as `not_configured` (the chain falls back, no breaker sample,
 * no alert) instead of sending an empty credential.
 *
 * A `vertex` provider's service-account key JSON comes from its `apiKeyEnv` (the JSON itself) or
 * its `credentialsFile` (read once it exists, then kept; until then the models are `not_configured`).
 *
 * OpenAI-compatible calls go through the process's keep-alive `node:http` agents
 * (`providers/openai/http-transport.ts`): per request a fraction of the CPU of the global `fetch`
 * (`bench/overhead`).
 */
export function envProviderAccess(config: SwitchyardConfig, env: NodeJS.ProcessEnv): ProviderAccess {
  const files = credentialsFiles();
  return {
    apiKey(providerName) {
      const provider = config.providers[providerName];
      if (provider?.type === 'vertex') {
        const value = provider.apiKeyEnv === undefined ? undefined : env[provider.apiKeyEnv]?.trim();
        if (value) return value;
        return provider.credentialsFile === undefined ? undefined : files.read(provider.credentialsFile);
      }
      if (!isKeyedProvider(provider)) return undefined;
      if (provider.apiKeyEnv === undefined)
        return provider.apiKeySecret === undefined ? 'not-needed' : undefined;
      const value = env[provider.apiKeyEnv]?.trim();
      return value ? value : undefined;
    },
    callerHint(providerName) {
      const provider = config.providers[providerName];
      // A credentials file's path is where a key is kept: only a variable's name is told.
      return provider?.type === 'vertex' || isKeyedProvider(provider) ? provider.apiKeyEnv : undefined;
    },
    keyHint(providerName) {
      const provider = config.providers[providerName];
      if (provider?.type === 'vertex') {
        const where = [provider.apiKeyEnv, provider.credentialsFile].filter((w) => w !== undefined);
        return where.length > 0 ? where.join(' or ') : `providers.${providerName}.credentialsFile`;
      }
      return isKeyedProvider(provider) && provider.apiKeyEnv
        ? provider.apiKeyEnv
        : `providers.${providerName}.apiKeyEnv`;
    },
  };
}

/** Files read once they exist: a key file written after start-up is picked up by the next attempt. */
function credentialsFiles(): { read(path: string): string | undefined } {
  const held = new Map<string, string>();
  return {
    read(path) {
      const known = held.get(path);
      if (known !== undefined) return known;
      try {
        const text = readFileSync(path, 'utf8').trim();
        if (text) held.set(path, text);
        return text || undefined;
      } catch {
        return undefined;
      }
    },
  };
}
