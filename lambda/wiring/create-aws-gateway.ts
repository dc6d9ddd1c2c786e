import { createParameterSource } from '../aws/parameter-snapshot.js';
import {
  powertoolsLedger,
  powertoolsLogger,
  reportAdmissionStoreFailure,
  reportBreakerOpened,
  reportBreakerStoreFailure,
  reportSpendUse,
  reportSsmSnapshotFailure,
} from '../aws/powertools-evidence.js';
import { createAwsProviderKeys } from '../aws/provider-keys.js';
import { createSsmAdmissionSettings } from '../aws/ssm-admission-settings.js';
import { createSsmChainParameters } from '../aws/ssm-chain-parameters.js';
import { createSsmChainStore, resolveSsmPrefix } from '../aws/ssm-chains.js';
import type { BreakerEvents } from '../core/breaker/breakers.js';
import {
  createConfigChainSource,
  createEnvChainSource,
  createSsmChainSource,
} from '../core/catalog/chain-sources.js';
import { selectAdmissionStore } from '../stores/select-admission-store.js';
import { breakerStoreSettings, selectBreakerStore } from '../stores/select-breaker-store.js';
import { otelSpanTracer } from '../tracing/otel-span-tracer.js';
import { tracingSettings } from '../tracing/tracing-env.js';
import { type AssembledGateway, assembleGateway } from './assemble-gateway.js';
import { awsCallerKeys } from './aws-caller-keys.js';
import { type AwsContainer, awsJobs, remoteKeyReaders, systemKeyReadRetry } from './aws-container.js';
import { breakerLogEvents } from './breaker-log-events.js';
import { systemClock } from './system-time.js';

/**
 * How long a new container's request waits for the first SSM snapshot (chain overrides) before it
 * uses the config chain, in ms: SSM answers in tens of ms, but a throttled read retries for up to
 * `aws.keyReadBudgetMs`, which a spike's first requests should not all wait out.
 */
export const FIRST_SNAPSHOT_WAIT_MS = 1_500;

/**
 * The gateway in AWS mode, for the API and the worker alike: the bundled config; one parameter
 * snapshot of `<prefix>` (one recursive `GetParametersByPath` per `chainCacheMs` ± 20 %, retried
 * with jittered backoff within `aws.keyReadBudgetMs`) serving chain overrides (env > SSM > config)
 * and the provider keys stored there; caller keys from the `SWITCHYARD_KEYS_TABLE` table, one
 * read per key and container (`awsCallerKeys`); other
 * provider keys batched on `providerKeyCacheMs`; with `statusPage.console`, the operator console
 * writing `<prefix>/chains/*`; the DynamoDB breaker store, whose table also
 * holds the admission counters (settings: `<prefix>/admission` over the config); jobs when their
 * table and queue are named; and the ledger as Powertools log lines and EMF metrics.
 */
export async function createAwsGateway(container: AwsContainer): Promise<AssembledGateway> {
  const { env, config, logger, metrics } = container;
  const ssmPrefix = resolveSsmPrefix(config, env);
  const log = powertoolsLogger(logger);
  // Only spreads refreshes across containers; nothing depends on its exact values.
  const random = Math.random;
  const retry = systemKeyReadRetry(config.aws.keyReadBudgetMs);
  const source = createParameterSource({
    client: container.ssm,
    prefix: ssmPrefix,
    cacheMs: config.aws.chainCacheMs,
    readTimeoutMs: config.aws.keyReadBudgetMs,
    log,
    clock: systemClock,
    random,
    sleep: retry.sleep,
    onReadFailure: () => reportSsmSnapshotFailure(metrics),
  });
  const access = createAwsProviderKeys({
    config,
    source,
    readers: remoteKeyReaders(container, retry),
    log,
    clock: systemClock,
    random,
  });
  const storeSettings = breakerStoreSettings({ env });
  const [, selected] = await Promise.all([
    access.load(),
    selectBreakerStore(storeSettings, { ensureTable: true }),
  ]);
  return assembleGateway({
    config,
    sources: (catalog) => [
      createEnvChainSource(env),
      createSsmChainSource(
        createSsmChainParameters(source, { ms: FIRST_SNAPSHOT_WAIT_MS, sleep: retry.sleep }),
      ),
      createConfigChainSource(catalog),
    ],
    envOverrides: (name) => (env[name]?.trim() ?? '') !== '',
    store: selected.store,
    answers: selected.answers?.(config.answerCache),
    access,
    log,
    ledger: powertoolsLedger(logger, metrics),
    breakerEvents: withStoreFailureMetric(
      breakerLogEvents(log, (event) => reportBreakerOpened(log, metrics, event)),
      (operation) => reportBreakerStoreFailure(metrics, operation),
    ),
    callerKeys: awsCallerKeys({ env, config, source, connection: storeSettings.connection, retry, log }),
    jobs: awsJobs(container),
    admissionStore: selectAdmissionStore(storeSettings, systemClock).store,
    admissionSettings: createSsmAdmissionSettings({ source, config: config.admission, log }),
    onAdmissionStoreFailure: (failure) => reportAdmissionStoreFailure(metrics, failure),
    onSpendUse: (limit, share) => reportSpendUse(metrics, limit, share),
    // On AWS the ADOT Lambda layer registers the SDK (docs/operations.md#traces-on-aws): only the API is bundled.
    tracer: tracingSettings(env) ? otelSpanTracer() : undefined,
    // The console writes SSM itself; the stack grants PutParameter/DeleteParameter only with statusPage.console.
    operator: config.statusPage.console
      ? {
          store: createSsmChainStore({ client: container.ssm, ssmPrefix }),
          where: `SSM ${ssmPrefix}/chains/`,
          env,
          appliesWithinMs: config.aws.chainCacheMs,
        }
      : undefined,
  });
}

/** `events` with each breaker store failure also counted (the `BreakerStoreFailures` alarm). */
function withStoreFailureMetric(
  events: BreakerEvents,
  count: (operation: Parameters<NonNullable<BreakerEvents['onStoreError']>>[0]) => void,
): BreakerEvents {
  return {
    ...events,
    onStoreError: (operation, error) => {
      events.onStoreError?.(operation, error);
      count(operation);
    },
  };
}
