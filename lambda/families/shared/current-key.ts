import type { CatalogRoute } from '../../core/catalog/catalog.js';
import { ProviderError } from '../../core/failures/provider-error.js';
import type { ProviderAccess } from '../provider-family.js';

/**
 * The key source of one model of a keyed family: the provider's current key, or a
 * `not_configured` error naming where the key should come from (never a value).
 */
export function currentKey(
  entry: Pick<CatalogRoute, 'key' | 'providerName'>,
  access: ProviderAccess,
): () => string {
  return () => {
    const key = access.apiKey(entry.providerName);
    // A blank key is no key: sent, it would read as a refused credential and quarantine the route.
    if (key !== undefined && key.trim() !== '') return key;
    throw new ProviderError({
      provider: entry.providerName,
      model: entry.key,
      failureClass: 'not_configured',
      setting: access.callerHint?.(entry.providerName),
      message: `no API key for provider '${entry.providerName}' (set ${access.keyHint(entry.providerName)})`,
    });
  };
}
