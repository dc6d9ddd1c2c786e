import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SSMClient } from '@aws-sdk/client-ssm';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDynamoDbCallerKeys } from '../../lambda/aws/dynamodb-caller-keys.js';
import { createParameterSource } from '../../lambda/aws/parameter-snapshot.js';
import { createAwsProviderKeys } from '../../lambda/aws/provider-keys.js';
import { createSsmCallerKeys } from '../../lambda/aws/ssm-caller-keys.js';
import { createSsmChainParameters } from '../../lambda/aws/ssm-chain-parameters.js';
import type { SwitchyardConfig } from '../../lambda/config/switchyard-config.js';
import { silentLogger } from '../../lambda/core/logger.js';
import type { Clock, Sleep } from '../../lambda/core/time.js';
import { type CallerKeyCheck, matchCallerKey, sha256Hex } from '../../lambda/http/caller-auth.js';
import { remoteKeyReaders } from '../../lambda/wiring/aws-container.js';
import { FIRST_SNAPSHOT_WAIT_MS } from '../../lambda/wiring/create-aws-gateway.js';
import { seededRandom } from '../../lambda/wiring/seeded-random.js';

/**
 * How a container gets what it needs before it can answer:
 * - `ssm`: the path before this change: caller keys and provider keys in the one recursive SSM
 *   snapshot of the prefix, read once (the SDK's own single retry), no backoff of our own;
 * - `table`: caller keys from the DynamoDB table (one GetItem per key), provider keys from Secrets
 *   Manager, the SSM snapshot only for chain overrides; every read retried with jittered backoff
 *   within `aws.keyReadBudgetMs`.
 */
export type KeyPath = 'ssm' | 'table';

/** What a caller got from one request. */
export type Outcome = '200' | '401' | '503 caller keys unavailable' | '503 provider_not_configured';

/** Settings of one simulated container; the clients are shared, each container has its own state and seed. */
export interface ColdContainerOptions {
  path: KeyPath;
  config: SwitchyardConfig;
  ssm: SSMClient;
  secretsManager: SecretsManagerClient;
  documents: DynamoDBDocumentClient;
  /** The caller-keys table (`table` path). */
  tableName: string;
  seed: number;
  /** The bench's virtual clock and its sleep. */
  clock: Clock;
  sleep: Sleep;
}

/** One new Lambda container: what `createAwsGateway` builds, and what a request asks of it. */
export interface ColdContainer {
  /** The cold start: what `createAwsGateway` awaits before the first request (provider keys). */
  start(): Promise<void>;
  /** One request: caller-key check, the pipeline's chain, the provider keys of its models. */
  request(callerKey: string): Promise<Outcome>;
}

/** Builds one new container on the real AWS wiring objects (see `KeyPath`), on the given clock. */
export function createColdContainer(options: ColdContainerOptions): ColdContainer {
  const { config, path, clock, sleep } = options;
  const random = seededRandom(options.seed);
  const retry = { budgetMs: config.aws.keyReadBudgetMs, clock, random, sleep };
  const source = createParameterSource({
    client: options.ssm,
    prefix: config.aws.ssmPrefix,
    cacheMs: config.aws.chainCacheMs,
    readTimeoutMs: path === 'ssm' ? 4_000 : config.aws.keyReadBudgetMs,
    log: silentLogger,
    clock,
    random,
    sleep: path === 'ssm' ? undefined : sleep,
  });
  const keys = createAwsProviderKeys({
    config,
    source,
    readers: remoteKeyReaders({ ssm: options.ssm, secretsManager: options.secretsManager }, retry),
    log: silentLogger,
    clock,
    random,
  });
  const chains = createSsmChainParameters(
    source,
    path === 'ssm' ? undefined : { ms: FIRST_SNAPSHOT_WAIT_MS, sleep },
  );
  const callerKeys: CallerKeyCheck =
    path === 'ssm'
      ? createSsmCallerKeys({
          source,
          log: silentLogger,
          clock,
          maxStaleMs: config.aws.callerKeysMaxStaleMs,
        })
      : createDynamoDbCallerKeys({
          ...retry,
          client: options.documents,
          tableName: options.tableName,
          hitMs: config.aws.callerKeyCacheMs,
          missMs: config.aws.callerKeyMissCacheMs,
          maxStaleMs: config.aws.callerKeysMaxStaleMs,
          readBudgetMs: config.aws.keyReadBudgetMs,
          log: silentLogger,
        });
  const providers = Object.keys(config.providers);

  /** What `callerAuth` decides, without the HTTP around it. */
  const authorised = async (key: string): Promise<Outcome | undefined> => {
    try {
      if ('nameOf' in callerKeys) return (await callerKeys.nameOf(sha256Hex(key))) ? undefined : '401';
      const hashes = await callerKeys.hashes();
      return hashes && matchCallerKey(key, hashes) ? undefined : '401';
    } catch {
      return '503 caller keys unavailable';
    }
  };

  return {
    start: () => keys.load(),
    async request(callerKey) {
      const refused = await authorised(callerKey);
      if (refused) return refused;
      // An unreadable override falls back to the config chain, as the chain resolver does.
      await chains.get('p1').catch(() => undefined);
      return providers.some((p) => keys.apiKey(p) !== undefined) ? '200' : '503 provider_not_configured';
    },
  };
}
