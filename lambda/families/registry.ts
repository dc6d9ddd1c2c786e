/**
 * The provider families Switchyard knows, one line each (in the spirit of the Vercel AI SDK's
 * `createProviderRegistry`): the config's `providers.<name>.type` selects one. A new family is a
 * folder under `lambda/families/` with its `ProviderFamily` record, plus one line here.
 */
import * as z from 'zod';
import type { CatalogRoute } from '../core/catalog/catalog.js';
import type { ProviderSettings } from '../core/catalog/config-schema.js';
import type { ChatModel } from '../core/chat/chat-model.js';
import { lazySchema } from '../core/lazy-schema.js';
import { anthropicFamily } from './anthropic/anthropic-family.js';
import { bedrockFamily } from './bedrock/bedrock-family.js';
import { openAICompatibleFamily } from './openai-compatible/openai-compatible-family.js';
import type { FamilyContext, ProviderFamily } from './provider-family.js';
import { vertexFamily } from './vertex/vertex-family.js';

/** Every registered family, in the order error messages list them. */
export const PROVIDER_FAMILIES = [
  openAICompatibleFamily,
  bedrockFamily,
  vertexFamily,
  anthropicFamily,
] as const;

type Families = typeof PROVIDER_FAMILIES;
/** One registered family record, with its literal `type`, schema and capabilities. */
export type RegisteredFamily = Families[number];
/** The tuple of the families' schemas, element by element (a generic keeps it a tuple). */
type SchemasOf<T extends readonly unknown[]> = {
  [K in keyof T]: T[K] extends { schema: infer S } ? S : never;
};

/** A provider entry of the config: the union of the families' schemas, told apart by `type`. */
export const providerSchema = lazySchema(() =>
  z.discriminatedUnion(
    'type',
    PROVIDER_FAMILIES.map((family) => family.schema) as unknown as SchemasOf<Families>,
  ),
);

/** A provider entry of a parsed config, of any registered family. */
export type ProviderConfig = z.output<typeof providerSchema>;
/** The config `type`s the registry knows. */
export type ProviderType = ProviderConfig['type'];

/**
 * A family with its config type erased: the registry hands each family only provider entries
 * its own schema accepted (the entry's `type` chose it), so the erasure is sound.
 */
interface ErasedFamily extends Omit<ProviderFamily<ProviderSettings>, 'createModels'> {
  createModels(context: FamilyContext): (route: CatalogRoute) => ChatModel;
}

const BY_TYPE: ReadonlyMap<string, ErasedFamily> = new Map(
  PROVIDER_FAMILIES.map((family) => [family.type, family as unknown as ErasedFamily]),
);

/**
 * The family of a provider entry's `type`. A parsed config only holds registered types, so an
 * unknown one is a programming error, and throws naming the type and the known ones.
 */
export function familyOf(type: string): ErasedFamily {
  const family = findFamily(type);
  if (!family) throw new Error(`no provider family '${type}' (known: ${[...BY_TYPE.keys()].join(', ')})`);
  return family;
}

/** The family of `type`, or undefined when no family registers it. */
export function findFamily(type: string): ErasedFamily | undefined {
  return BY_TYPE.get(type);
}
