import type { SwitchyardConfig } from '../config/switchyard-config.js';
import { ConfigError } from '../core/errors.js';

/**
 * The config as one region of a multi-region deployment runs it (docs/operations.md#a-second-region):
 * every Bedrock provider calls Bedrock in `region` (the stack's own), and each model named in
 * `aws.regionalModels[region]` uses that model id there (for Bedrock, an inference profile of the
 * region's geography). The stack grants IAM from this config at synth time, and the Lambda applies the same
 * function to its `AWS_REGION` at start, so the two always agree. A region outside `aws.regions`
 * (or no region) leaves the config as it is. An entry for a model the config does not have is a
 * `ConfigError` naming the field.
 */
export function configForRegion(config: SwitchyardConfig, region: string | undefined): SwitchyardConfig {
  if (region === undefined || !config.aws.regions?.includes(region)) return config;
  const profiles = config.aws.regionalModels[region] ?? {};
  for (const key of Object.keys(profiles)) {
    if (!config.models[key])
      throw new ConfigError(`aws.regionalModels.${region}.${key}`, `no model '${key}'`);
  }
  const providers = Object.fromEntries(
    Object.entries(config.providers).map(([name, p]) => [name, p.type === 'bedrock' ? { ...p, region } : p]),
  ) as SwitchyardConfig['providers'];
  const models = Object.fromEntries(
    Object.entries(config.models).map(([key, m]) => {
      const profile = profiles[key];
      return [key, profile === undefined ? m : { ...m, model: profile }];
    }),
  );
  return { ...config, providers, models };
}
