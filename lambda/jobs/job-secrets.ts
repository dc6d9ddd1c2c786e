import type { JobDelivery } from '../core/jobs/job.js';

/** Reads a secret by name (SSM SecureString or Secrets Manager in AWS); undefined when it is absent. */
export type SecretReader = (name: string) => Promise<string | undefined>;

/** The signing secret of one delivery target; undefined when none can be found. */
export type DeliverySecret = (delivery: JobDelivery) => Promise<string | undefined>;

/**
 * Where a webhook's signing secret comes from: the environment variable `secretEnv` when it is set
 * (local mode), else `secretName` through `readSecret` (AWS mode: the lead's SSM/Secrets Manager
 * reader, which caches). An empty value counts as absent, so a blank variable never signs.
 */
export function createDeliverySecrets(options: {
  env: NodeJS.ProcessEnv;
  readSecret?: SecretReader | undefined;
}): DeliverySecret {
  return async (delivery) => {
    const fromEnv = delivery.secretEnv ? options.env[delivery.secretEnv]?.trim() : undefined;
    if (fromEnv) return fromEnv;
    if (delivery.secretName && options.readSecret) {
      const value = (await options.readSecret(delivery.secretName))?.trim();
      if (value) return value;
    }
    return undefined;
  };
}
