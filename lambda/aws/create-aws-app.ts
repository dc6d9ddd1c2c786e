import {
  createConfigChainSource,
  createEnvChainSource,
  createSsmChainSource,
} from '../core/catalog/chain-sources.js';
import { type AssembledGateway, assembleGateway } from '../runtime/assemble-gateway.js';
import { breakerLogEvents } from '../runtime/breaker-log-events.js';
import { breakerStoreSettings, selectBreakerStore } from '../stores/select-breaker-store.js';
import { type AwsRuntime, awsJobs, readSecret } from './aws-runtime.js';
import { powertoolsLedger, powertoolsLogger, reportBreakerOpened } from './powertools-evidence.js';
import { loadProviderKeys } from './provider-keys.js';
import { callerKeysParameterName, createSsmCallerKeys } from './ssm-caller-keys.js';
import { createSsmChainParameters } from './ssm-chain-parameters.js';
import { resolveSsmPrefix } from './ssm-chains.js';

/**
 * The gateway in AWS mode, for the API and the worker alike: the bundled config, chains from env >
 * SSM (cached `chainCacheMs`) > config, the DynamoDB breaker store, provider keys from SSM /
 * Secrets Manager, caller keys from `<prefix>/caller-keys`, jobs when their table and queue are
 * named, and the ledger as Powertools log lines and EMF metrics.
 */
export async function createAwsGateway(runtime: AwsRuntime): Promise<AssembledGateway> {
  const { env, config, logger, metrics } = runtime;
  const ssmPrefix = resolveSsmPrefix(config, env);
  const log = powertoolsLogger(logger);
  const read = readSecret(runtime);
  const [access, selected] = await Promise.all([
    loadProviderKeys(config, read, log),
    selectBreakerStore(breakerStoreSettings({ env }), { ensureTable: true }),
  ]);
  const chainParameters = createSsmChainParameters(runtime.ssmProvider, {
    ssmPrefix,
    cacheMs: config.aws?.chainCacheMs ?? 30_000,
    log,
  });
  return assembleGateway({
    config,
    sources: (catalog) => [
      createEnvChainSource(env),
      createSsmChainSource(chainParameters),
      createConfigChainSource(catalog),
    ],
    envOverrides: (name) => (env[name]?.trim() ?? '') !== '',
    store: selected.store,
    access,
    log,
    ledger: powertoolsLedger(logger, metrics),
    breakerEvents: breakerLogEvents(log, (event) => reportBreakerOpened(log, metrics, event)),
    callerKeys: createSsmCallerKeys({
      client: runtime.ssm,
      parameterName: callerKeysParameterName(ssmPrefix),
      log,
    }),
    jobs: awsJobs(runtime),
  });
}
