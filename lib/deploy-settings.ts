import { createCatalog } from '../lambda/core/catalog/catalog.js';
import {
  DEFAULT_INTEGRATION_TIMEOUT_SECONDS,
  type SwitchyardConfig,
} from '../lambda/core/catalog/config-schema.js';

/** Lambda's longest timeout, and API Gateway's longest streamed integration, in s. */
const MAX_SECONDS = 900;

/** The `aws` section of the config with every default applied: what the stack builds from. */
export interface DeploySettings {
  /** SSM prefix of chains overrides, caller keys and (usually) provider keys. Default `/switchyard`. */
  ssmPrefix: string;
  /** Subscribed to the alarm topic when set. */
  alarmEmail: string | undefined;
  /** Reserved concurrency of the API function; undefined = the account's unreserved pool. */
  apiReservedConcurrency: number | undefined;
  /** SQS event source `maxConcurrency` of the worker. Default 10. */
  workerMaxConcurrency: number;
  /** Stage throttling, requests per second. Default 500. */
  stageRateLimit: number;
  /** Stage burst. Default 2 × `stageRateLimit`. */
  stageBurstLimit: number;
  /** API Gateway integration timeout in s: the longest a request or a committed stream runs. Default 29. */
  integrationTimeoutSeconds: number;
  /** The API function's timeout in s. Default integration timeout + 1 (at most 900). */
  apiFunctionTimeoutSeconds: number;
}

/** Worker instances the job queue drives at once unless the config says otherwise. */
export const DEFAULT_WORKER_MAX_CONCURRENCY = 10;
/** Stage rate limit (requests per second) unless the config says otherwise. */
export const DEFAULT_STAGE_RATE_LIMIT = 500;

/** Applies the defaults of the `aws` section. */
export function deploySettings(config: SwitchyardConfig): DeploySettings {
  const aws = config.aws;
  const capacity = aws?.capacity ?? {};
  const integrationTimeoutSeconds =
    aws?.streaming?.integrationTimeoutSeconds ?? DEFAULT_INTEGRATION_TIMEOUT_SECONDS;
  const stageRateLimit = capacity.stageRateLimit ?? DEFAULT_STAGE_RATE_LIMIT;
  return {
    ssmPrefix: aws?.ssmPrefix ?? '/switchyard',
    alarmEmail: aws?.alarmEmail,
    apiReservedConcurrency: capacity.apiReservedConcurrency,
    workerMaxConcurrency: capacity.workerMaxConcurrency ?? DEFAULT_WORKER_MAX_CONCURRENCY,
    stageRateLimit,
    stageBurstLimit: capacity.stageBurstLimit ?? stageRateLimit * 2,
    integrationTimeoutSeconds,
    apiFunctionTimeoutSeconds:
      aws?.streaming?.functionTimeoutSeconds ?? Math.min(MAX_SECONDS, integrationTimeoutSeconds + 1),
  };
}

/**
 * What only a deployment can get wrong: every pipeline's deadline (the time to the first byte, in
 * which fallback works) must end inside the integration timeout with a second to answer, and a
 * key named only by `apiKeyEnv` exists only on a laptop, so every keyed provider needs an
 * `apiKeySecret` in AWS. Throws an error naming the field.
 */
export function checkDeployable(config: SwitchyardConfig, settings: DeploySettings): void {
  for (const [name, provider] of Object.entries(config.providers)) {
    if (provider.type === 'openai' && provider.apiKeyEnv && !provider.apiKeySecret) {
      throw new Error(
        `providers.${name}: apiKeyEnv (${provider.apiKeyEnv}) only works locally; add apiKeySecret (an SSM SecureString /path or a Secrets Manager name) to deploy`,
      );
    }
  }
  const catalog = createCatalog(config);
  const timeout = settings.integrationTimeoutSeconds;
  const limitMs = (timeout - 1) * 1000;
  for (const pipeline of ['(ad-hoc chains)', ...catalog.pipelines]) {
    const { deadlineMs } = catalog.policy(pipeline).route;
    if (deadlineMs > limitMs) {
      throw new Error(
        `pipeline ${pipeline}: deadlineMs ${deadlineMs} does not fit API Gateway's ${timeout} s integration timeout (aws.streaming.integrationTimeoutSeconds); use at most ${limitMs}`,
      );
    }
  }
}
