import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SSMClient } from '@aws-sdk/client-ssm';
import { createParameterSource } from '../../lambda/aws/parameter-snapshot.js';
import { type AwsProviderKeys, createAwsProviderKeys } from '../../lambda/aws/provider-keys.js';
import { createSsmCallerKeys } from '../../lambda/aws/ssm-caller-keys.js';
import { createSsmChainParameters } from '../../lambda/aws/ssm-chain-parameters.js';
import type { SwitchyardConfig } from '../../lambda/config/switchyard-config.js';
import type { ChainParameterStore } from '../../lambda/core/catalog/chain-sources.js';
import { silentLogger } from '../../lambda/core/logger.js';
import type { Clock } from '../../lambda/core/time.js';
import type { CallerKeySource } from '../../lambda/http/caller-auth.js';
import { remoteKeyReaders } from '../../lambda/wiring/aws-container.js';
import { seededRandom } from '../../lambda/wiring/seeded-random.js';

/** One warm Lambda container as `createAwsGateway` wires its SSM side: the same objects, a virtual clock. */
export interface SimContainer {
  /** The cold start: what `createAwsGateway` awaits before the first request. */
  start(): Promise<void>;
  /** What one request does with SSM: caller keys, the pipeline's chain, every provider key. */
  request(): Promise<void>;
}

/** One simulated container: the shared SSM client and virtual clock, its own jitter seed. */
export interface SimContainerOptions {
  client: SSMClient;
  config: SwitchyardConfig;
  prefix: string;
  clock: Clock;
  seed: number;
}

/** Builds one simulated container (see `SimContainer`). */
export function createSimContainer(options: SimContainerOptions): SimContainer {
  const { client, config, prefix, clock } = options;
  const random = seededRandom(options.seed);
  const source = createParameterSource({
    client,
    prefix,
    cacheMs: config.aws.chainCacheMs,
    log: silentLogger,
    clock,
    random,
  });
  // The bench has no Secrets Manager names: the client is never called.
  const readers = remoteKeyReaders({ ssm: client, secretsManager: {} as SecretsManagerClient });
  const keys: AwsProviderKeys = createAwsProviderKeys({
    config,
    source,
    readers,
    log: silentLogger,
    clock,
    random,
  });
  const chains: ChainParameterStore = createSsmChainParameters(source);
  const callerKeys: CallerKeySource = createSsmCallerKeys({
    source,
    log: silentLogger,
    clock,
    maxStaleMs: config.aws.callerKeysMaxStaleMs,
  });
  const providers = Object.keys(config.providers);
  return {
    start: () => keys.load(),
    async request() {
      await callerKeys.hashes();
      await chains.get('p1');
      for (const name of providers) keys.apiKey(name);
    },
  };
}
