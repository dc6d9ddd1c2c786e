/**
 * What a route can carry (docs/concepts.md#capabilities): each provider family declares it, a
 * model may override it in the config, and the router skips a route that cannot carry what a
 * request needs instead of calling it with the part stripped.
 */
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';

/**
 * Every capability, in the order labels and messages list them:
 * - `images`: image parts in user messages (inline data);
 * - `imageUrls`: images given by an http(s) URL the provider fetches itself;
 * - `documents`: PDF documents given inline;
 * - `documentUrls`: PDF documents given by URL;
 * - `toolResultMedia`: images or documents inside a tool result;
 * - `tools`: tool definitions, tool calls and tool results;
 * - `reasoning`: reasoning / extended thinking controls;
 * - `caching`: explicit prompt-cache breakpoints;
 * - `logprobs`: token log probabilities in the answer;
 * - `prefill`: a trailing assistant message the model continues.
 */
export const CAPABILITIES = [
  'images',
  'imageUrls',
  'documents',
  'documentUrls',
  'toolResultMedia',
  'tools',
  'reasoning',
  'caching',
  'logprobs',
  'prefill',
] as const;

/** One thing a route may or may not carry. */
export type Capability = (typeof CAPABILITIES)[number];

/** What one route carries: true for each capability it has. */
export type Capabilities = Readonly<Record<Capability, boolean>>;

/** A model's `capabilities` in the config: any subset, each overriding its routes' family value. */
export const capabilityOverridesSchema = lazySchema(() =>
  z.strictObject(
    Object.fromEntries(CAPABILITIES.map((name) => [name, z.boolean().optional()])) as Record<
      Capability,
      z.ZodOptional<z.ZodBoolean>
    >,
  ),
);

/** A parsed `models.<key>.capabilities`. */
export type CapabilityOverrides = z.infer<typeof capabilityOverridesSchema>;

/** A family's capabilities with a model's overrides on top (an absent override keeps the family's value). */
export function withOverrides(
  family: Capabilities,
  overrides: CapabilityOverrides | undefined,
): Capabilities {
  if (!overrides) return family;
  const merged = { ...family };
  for (const name of CAPABILITIES) {
    const value = overrides[name];
    if (value !== undefined) merged[name] = value;
  }
  return merged;
}
