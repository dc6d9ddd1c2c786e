import { Stack } from 'aws-cdk-lib';
import type { SwitchyardConfig } from '../../lambda/config/switchyard-config.js';
import type { BundledFunction } from './bundled-function.js';

/**
 * Every prefix of AWS's system-defined cross-region inference profiles today: the geographies
 * (United States, GovCloud, Europe, Asia-Pacific, Japan, Australia, Canada) and `global.`, which
 * may route to any commercial region.
 */
export const INFERENCE_PROFILE_PREFIXES = ['us', 'us-gov', 'eu', 'apac', 'jp', 'au', 'ca', 'global'] as const;

/**
 * The regions each profile prefix may route to, as the region part of an ARN: the geography's
 * region names (a new region of the geography is covered without a deploy), every region for
 * `global.`. Japan's profiles route to Tokyo and Osaka, Australia's to Sydney and Melbourne.
 */
export const PROFILE_DESTINATIONS: Readonly<Record<(typeof INFERENCE_PROFILE_PREFIXES)[number], string>> = {
  us: 'us-*',
  'us-gov': 'us-gov-*',
  eu: 'eu-*',
  apac: 'ap-*',
  jp: 'ap-northeast-*',
  au: 'ap-southeast-*',
  ca: 'ca-*',
  global: '*',
};

const PROFILE_ID = new RegExp(`^(${INFERENCE_PROFILE_PREFIXES.join('|')})\\.(.+)$`);

/** An inference-profile id split into its prefix and the foundation model it routes to; else undefined. */
export function parseInferenceProfileId(
  modelId: string,
): { prefix: keyof typeof PROFILE_DESTINATIONS; foundationModel: string } | undefined {
  const match = PROFILE_ID.exec(modelId);
  return match?.[1] && match[2]
    ? { prefix: match[1] as keyof typeof PROFILE_DESTINATIONS, foundationModel: match[2] }
    : undefined;
}

/** The Bedrock ARNs a role needs for the config's models. */
export interface BedrockResources {
  /** Foundation models called in their provider's region, and the inference profiles themselves. */
  direct: string[];
  /** The foundation models behind the profiles, in the regions their profile may pick. */
  throughProfiles: string[];
  /** The inference-profile ARNs (the condition that scopes `throughProfiles`). */
  profiles: string[];
}

/**
 * Invoking an inference profile is authorised twice: on the profile (in the caller's region) and
 * on the foundation model in the destination region Bedrock picks. So a profile grants its own ARN
 * plus its model in the regions of its geography ({@link PROFILE_DESTINATIONS}: `us.` →
 * `bedrock:us-*::`; a `global.` profile any region and the region-less model ARN); a plain model
 * id grants that model in its provider's region. Each grant names the configured model, never `*`.
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
    const regions = PROFILE_DESTINATIONS[profile.prefix];
    throughProfiles.add(
      `arn:${stack.partition}:bedrock:${regions}::foundation-model/${profile.foundationModel}`,
    );
    // AWS documents the region-less ARN for global profiles; named too, not left to the wildcard.
    if (profile.prefix === 'global')
      throughProfiles.add(`arn:${stack.partition}:bedrock:::foundation-model/${profile.foundationModel}`);
  }
  return { direct: [...direct], throughProfiles: [...throughProfiles], profiles: [...profiles] };
}
