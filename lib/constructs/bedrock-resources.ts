import { Stack } from 'aws-cdk-lib';
import type { SwitchyardConfig } from '../../lambda/core/catalog/config-schema.js';
import type { BundledFunction } from './bundled-function.js';

/**
 * Every prefix of AWS's system-defined cross-region inference profiles today: the geographies
 * (United States, GovCloud, Europe, Asia-Pacific, Japan, Australia, Canada) and `global.`, which
 * may route to any commercial region.
 */
export const INFERENCE_PROFILE_PREFIXES = ['us', 'us-gov', 'eu', 'apac', 'jp', 'au', 'ca', 'global'] as const;

const PROFILE_ID = new RegExp(`^(${INFERENCE_PROFILE_PREFIXES.join('|')})\\.(.+)$`);

/** An inference-profile id split into its prefix and the foundation model it routes to; else undefined. */
export function parseInferenceProfileId(
  modelId: string,
): { prefix: string; foundationModel: string } | undefined {
  const match = PROFILE_ID.exec(modelId);
  return match?.[1] && match[2] ? { prefix: match[1], foundationModel: match[2] } : undefined;
}

/** The Bedrock ARNs a role needs for the config's models. */
export interface BedrockResources {
  /** Foundation models called in their provider's region, and the inference profiles themselves. */
  direct: string[];
  /** The foundation models behind the profiles, in whichever region the profile picks. */
  throughProfiles: string[];
  /** The inference-profile ARNs (the condition that scopes `throughProfiles`). */
  profiles: string[];
}

/**
 * Invoking an inference profile is authorised twice: on the profile (in the caller's region) and
 * on the foundation model in the destination region Bedrock picks. So a profile grants its own ARN
 * plus its model in every region (`bedrock:*::`; a `global.` profile also names the region-less
 * model ARN); a plain model id grants that model in its provider's region.
 */
export function bedrockResources(fn: BundledFunction, config: SwitchyardConfig): BedrockResources {
  const stack = Stack.of(fn);
  const direct = new Set<string>();
  const throughProfiles = new Set<string>();
  const profiles = new Set<string>();
  // Every route of every model: a model's further `routes` may reach Bedrock too.
  const routes = Object.values(config.models).flatMap((m) => [
    m,
    ...m.routes.map((r) => ({ provider: r.provider, model: r.model ?? m.model })),
  ]);
  for (const model of routes) {
    const provider = config.providers[model.provider];
    if (provider?.type !== 'bedrock') continue;
    const profile = parseInferenceProfileId(model.model);
    if (!profile) {
      direct.add(`arn:${stack.partition}:bedrock:${provider.region}::foundation-model/${model.model}`);
      continue;
    }
    const profileArn = `arn:${stack.partition}:bedrock:${provider.region}:${stack.account}:inference-profile/${model.model}`;
    direct.add(profileArn);
    profiles.add(profileArn);
    throughProfiles.add(`arn:${stack.partition}:bedrock:*::foundation-model/${profile.foundationModel}`);
    // AWS documents the region-less ARN for global profiles; named too, not left to the wildcard.
    if (profile.prefix === 'global')
      throughProfiles.add(`arn:${stack.partition}:bedrock:::foundation-model/${profile.foundationModel}`);
  }
  return { direct: [...direct], throughProfiles: [...throughProfiles], profiles: [...profiles] };
}
