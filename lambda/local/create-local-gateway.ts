import type { Hono } from 'hono';
import type { BreakerStore } from '../core/breaker/breaker-store.js';
import { createBreakers } from '../core/breaker/breakers.js';
import { type Catalog, createCatalog } from '../core/catalog/catalog.js';
import { createConfigChainSource, createEnvChainSource } from '../core/catalog/chain-sources.js';
import type { SwitchyardConfig } from '../core/catalog/config-schema.js';
import { createGateway, type Gateway } from '../core/gateway/gateway.js';
import type { LedgerSink } from '../core/ledger/ledger-entry.js';
import type { Logger } from '../core/logger.js';
import type { Clock, Random, Sleep } from '../core/time.js';
import { createHttpApp } from '../http/create-http-app.js';
import { createRouteModels, type ProviderAccess } from '../providers/create-chat-models.js';
import { systemClock, systemRandom, systemSleep } from '../runtime/system-time.js';
import { createMemoryBreakerStore } from '../stores/memory-breaker-store.js';
import { envProviderAccess } from './env-provider-access.js';

export interface LocalGatewayOptions {
  config: SwitchyardConfig;
  env: NodeJS.ProcessEnv;
  log: Logger;
  ledger: LedgerSink;
  /** Default: a memory store for this process. */
  store?: BreakerStore | undefined;
  /** Default: keys from `apiKeyEnv`, Bedrock credentials from the AWS SDK's chain. */
  access?: ProviderAccess | undefined;
  clock?: Clock | undefined;
  random?: Random | undefined;
  sleep?: Sleep | undefined;
  maxBodyBytes?: number | undefined;
}

export interface LocalGateway {
  app: Hono;
  gateway: Gateway;
  catalog: Catalog;
  store: BreakerStore;
}

/** Wires the gateway for one machine: catalog, providers, breakers, chain sources, HTTP app. */
export function createLocalGateway(options: LocalGatewayOptions): LocalGateway {
  const { config, env, log } = options;
  const catalog = createCatalog(config);
  const clock = options.clock ?? systemClock;
  const store = options.store ?? createMemoryBreakerStore();
  const breakers = createBreakers({
    store,
    clock,
    policyFor: (pipeline) => catalog.policy(pipeline).breaker,
    events: {
      onOpened: (e) => {
        const fields = {
          pipeline: e.pipeline,
          model: e.model,
          reason: e.reason,
          openUntil: new Date(e.openUntil).toISOString(),
          alert: e.alert,
        };
        if (e.alert)
          log.error('breaker opened: route quarantined, check its credentials or model id', fields);
        else log.warn('breaker opened', fields);
      },
      onStoreError: (operation, error) =>
        log.warn('breaker store failed; routing on what this process knows', {
          operation,
          error: error instanceof Error ? error.name : String(error),
        }),
    },
  });
  const gateway = createGateway({
    catalog,
    sources: [createEnvChainSource(env), createConfigChainSource(catalog)],
    models: createRouteModels(catalog.models.values(), options.access ?? envProviderAccess(config, env)),
    breakers,
    clock,
    random: options.random ?? systemRandom,
    sleep: options.sleep ?? systemSleep,
    ledger: options.ledger,
    log,
    envOverrides: (name) => (env[name]?.trim() ?? '') !== '',
  });
  const app = createHttpApp({ gateway, catalog, log, maxBodyBytes: options.maxBodyBytes });
  return { app, gateway, catalog, store };
}
