/** What each provider family can do, read from the registry's records (never a list kept apart). */
import type { SwitchyardConfig } from '../config/switchyard-config.js';
import { ConfigError } from '../core/errors.js';
import { PROVIDER_FAMILIES, type ProviderConfig, type RegisteredFamily } from './registry.js';

type KeyedType = Extract<RegisteredFamily, { keyed: true }>['type'];

/** The provider types that authenticate with an API key (`apiKeyEnv` / `apiKeySecret`). */
export const KEYED_PROVIDER_TYPES: readonly KeyedType[] = PROVIDER_FAMILIES.flatMap((family) =>
  family.keyed ? [family.type] : [],
);

/** A provider called with a key (an API key, or Vertex's service-account JSON); Bedrock signs with IAM. */
export type KeyedProviderConfig = Extract<ProviderConfig, { type: KeyedType }>;

/** True for a provider whose calls carry an API key; narrows to the types with key fields. */
export function isKeyedProvider(provider: ProviderConfig | undefined): provider is KeyedProviderConfig {
  return (KEYED_PROVIDER_TYPES as readonly string[]).includes(provider?.type ?? '');
}

/** Provider types whose models may declare `dimensions`: those with an embeddings API. */
export const EMBEDDING_PROVIDER_TYPES: readonly string[] = PROVIDER_FAMILIES.flatMap((family) =>
  family.embeddings ? [family.type] : [],
);

/** A `ConfigError` at `field` when an embedding model's provider has no embeddings API. */
function servesEmbeddings(field: string, type: string): void {
  if (EMBEDDING_PROVIDER_TYPES.includes(type)) return;
  throw new ConfigError(
    field,
    `a ${type} provider serves no embeddings; a model with dimensions needs one of type ${EMBEDDING_PROVIDER_TYPES.join(' or ')}`,
  );
}

/**
 * Every route of an embedding model (one with `dimensions`) reaches a family with an embeddings
 * API, else a `ConfigError` naming the route's `provider` field. Routes to an unknown or repeated
 * provider are left to the catalog, which names those problems.
 */
export function checkEmbeddingProviders(config: SwitchyardConfig): void {
  for (const [key, model] of Object.entries(config.models)) {
    if (model.dimensions === undefined) continue;
    const own = config.providers[model.provider];
    if (own) servesEmbeddings(`models.${key}.provider`, own.type);
    const seen = new Set([model.provider]);
    for (const [index, route] of model.routes.entries()) {
      const provider = config.providers[route.provider];
      if (!provider || seen.has(route.provider)) return;
      seen.add(route.provider);
      servesEmbeddings(`models.${key}.routes[${index}].provider`, provider.type);
    }
  }
}
