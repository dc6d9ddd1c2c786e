/**
 * The config schema and parser with the registered provider families: the core's config schema
 * (`lambda/core/catalog/config-schema.ts`) whose `providers` entries are the registry's union.
 * Everything that reads a config file, or a provider's own fields, uses these.
 */
import type * as z from 'zod';
import { createConfigSchema, type SwitchyardConfig as NeutralConfig } from '../core/catalog/config-schema.js';
import { createConfigParser } from '../core/catalog/parse-config.js';
import { lazySchema, once } from '../core/lazy-schema.js';
import { storedJobRequestSchema } from '../doors/jobs/job-request-schema.js';
import { checkEmbeddingProviders } from '../families/capabilities.js';
import { type ProviderConfig, providerSchema } from '../families/registry.js';

export type { ProviderConfig } from '../families/registry.js';

/**
 * The whole config file, with every registered family's provider schema and the jobs door's
 * request schema; built on first use (a Lambda that trusts its config validated at synth never
 * builds it).
 */
export const configSchema = lazySchema(() => createConfigSchema(providerSchema, storedJobRequestSchema));

/** A parsed config: every default filled, each provider typed by its family. */
export type SwitchyardConfig = NeutralConfig<ProviderConfig>;
/** What a config file may hold: every defaulted field optional. */
export type SwitchyardConfigInput = z.input<typeof configSchema>;

const parser = once(() => createConfigParser<SwitchyardConfig>(configSchema, checkEmbeddingProviders));

/**
 * Validates a parsed config object. Throws `ConfigError` naming the first bad field (and listing
 * up to five problems), so start-up fails with one readable line.
 */
export const parseConfig = (raw: unknown): SwitchyardConfig => parser().parseConfig(raw);

/** Parses config JSON text; `source` (a file path) appears in the error when the JSON is broken. */
export const parseConfigText = (text: string, source: string): SwitchyardConfig =>
  parser().parseConfigText(text, source);
