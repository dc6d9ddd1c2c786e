import type { SwitchyardConfig } from '../lambda/config/switchyard-config.js';
import { createCatalog } from '../lambda/core/catalog/catalog.js';
import { isKeyedProvider } from '../lambda/families/capabilities.js';
import { checkProviderURLs } from './provider-url-check.js';

/** Lambda's longest timeout, and API Gateway's longest streamed integration, in s. */
const MAX_SECONDS = 900;

/**
 * What the stack builds from: the `aws` section as the config schema filled it, plus the two
 * defaults that follow another field and so cannot be the schema's.
 */
export interface DeploySettings {
  /** SSM prefix of chains overrides, caller keys and (usually) provider keys: `aws.ssmPrefix`. */
  ssmPrefix: string;
  /** Subscribed to the alarm topic when set. */
  alarmEmail: string | undefined;
  /** Reserved concurrency of the API function; undefined = the account's unreserved pool. */
  apiReservedConcurrency: number | undefined;
  /** SQS event source `maxConcurrency` of the worker: `aws.capacity.workerMaxConcurrency`. */
  workerMaxConcurrency: number;
  /** Stage throttling, requests per second: `aws.capacity.stageRateLimit`. */
  stageRateLimit: number;
  /** Stage burst: `aws.capacity.stageBurstLimit`, default 2 × `stageRateLimit`. */
  stageBurstLimit: number;
  /** API Gateway integration timeout in s, the longest a request or a committed stream runs: `aws.streaming.integrationTimeoutSeconds`. */
  integrationTimeoutSeconds: number;
  /** The API function's timeout in s: `aws.streaming.functionTimeoutSeconds`, default integration timeout + 1 (at most 900). */
  apiFunctionTimeoutSeconds: number;
  /** What the API function runs on: `aws.compute`. */
  compute: 'on-demand' | 'managed-instances';
  /**
   * Memory of each function in MB: `aws.memoryMb`, the API's default 1024 on-demand and
   * `managedInstances.memoryGiBPerVCpu` × 1024 (one vCPU) on Managed Instances.
   */
  memoryMb: { api: number; worker: number; scheduler: number };
}

/** The deploy settings of a parsed config. */
export function deploySettings(config: SwitchyardConfig): DeploySettings {
  const { capacity, streaming, memoryMb, compute, managedInstances } = config.aws;
  const oneVCpuMb = managedInstances.memoryGiBPerVCpu * 1024;
  return {
    ssmPrefix: config.aws.ssmPrefix,
    alarmEmail: config.aws.alarmEmail,
    apiReservedConcurrency: capacity.apiReservedConcurrency,
    workerMaxConcurrency: capacity.workerMaxConcurrency,
    stageRateLimit: capacity.stageRateLimit,
    stageBurstLimit: capacity.stageBurstLimit ?? capacity.stageRateLimit * 2,
    integrationTimeoutSeconds: streaming.integrationTimeoutSeconds,
    apiFunctionTimeoutSeconds:
      streaming.functionTimeoutSeconds ?? Math.min(MAX_SECONDS, streaming.integrationTimeoutSeconds + 1),
    compute,
    memoryMb: {
      api: memoryMb.api ?? (compute === 'managed-instances' ? oneVCpuMb : 1024),
      worker: memoryMb.worker,
      scheduler: memoryMb.scheduler,
    },
  };
}

/**
 * What only a deployment can get wrong: every pipeline's deadline (the time to the first byte, in
 * which fallback works) must end inside the integration timeout with a second to answer, and a
 * key named only by `apiKeyEnv` exists only on a laptop, so every keyed provider needs an
 * `apiKeySecret` in AWS; and no provider URL is plain http or loopback unless the config allows
 * it ({@link checkProviderURLs}). Throws an error naming the field.
 */
export function checkDeployable(config: SwitchyardConfig, settings: DeploySettings): void {
  checkProviderURLs(config);
  checkManagedInstanceMemory(config, settings);
  for (const [name, provider] of Object.entries(config.providers)) {
    if (isKeyedProvider(provider) && provider.apiKeyEnv && !provider.apiKeySecret) {
      throw new Error(
        `providers.${name}: apiKeyEnv (${provider.apiKeyEnv}) only works locally; add apiKeySecret (an SSM SecureString /path or a Secrets Manager name) to deploy`,
      );
    }
    if (provider.type === 'vertex' && !provider.apiKeySecret) {
      throw new Error(
        `providers.${name}: apiKeyEnv and credentialsFile only work locally; add apiKeySecret (an SSM SecureString /path or a Secrets Manager name holding the service-account key JSON) to deploy`,
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

/**
 * Managed Instances give an execution environment `memoryGiBPerVCpu` GiB per vCPU, at least one
 * vCPU, and at least 2 GiB per vCPU: an API memory below one vCPU's share cannot be placed, and a
 * memory that is not a whole number of vCPUs' shares wastes the rest. Throws naming the field.
 */
function checkManagedInstanceMemory(config: SwitchyardConfig, settings: DeploySettings): void {
  if (settings.compute !== 'managed-instances') return;
  const ratio = config.aws.managedInstances.memoryGiBPerVCpu;
  const share = ratio * 1024;
  const api = settings.memoryMb.api;
  if (api < share || api % share !== 0) {
    throw new Error(
      `aws.memoryMb.api: ${api} MB does not fit Managed Instances at ${ratio} GiB per vCPU (aws.managedInstances.memoryGiBPerVCpu); use a multiple of ${share} (one vCPU = ${share} MB)`,
    );
  }
}
