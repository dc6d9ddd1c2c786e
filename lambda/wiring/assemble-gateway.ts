import type { Hono } from 'hono';
import type { SwitchyardConfig } from '../config/switchyard-config.js';
import { type AdmissionStoreFailure, createAdmission } from '../core/admission/admission.js';
import type { AdmissionStore } from '../core/admission/admission-store.js';
import type { PlannedLimit } from '../core/admission/limit-plan.js';
import { createSpendMeter } from '../core/admission/spend-meter.js';
import type { BreakerStore } from '../core/breaker/breaker-store.js';
import { type BreakerEvents, createBreakers } from '../core/breaker/breakers.js';
import { accountRouteId } from '../core/breaker/route-cooling.js';
import { adHocRefusal, stateScopeIn } from '../core/catalog/ad-hoc-chains.js';
import type { AdmissionSettings } from '../core/catalog/admission-config-schema.js';
import { adHocIdOf, type Catalog, createCatalog } from '../core/catalog/catalog.js';
import type { ChainSource } from '../core/catalog/chain-sources.js';
import { createGateway, type Gateway } from '../core/gateway/gateway.js';
import type { JobAdmission } from '../core/jobs/job-ports.js';
import { jobQuotaOf } from '../core/jobs/job-quota.js';
import type { AnswerCache } from '../core/last-resort/answer-cache.js';
import type { LedgerSink } from '../core/ledger/ledger-entry.js';
import type { AdHocGate } from '../core/lifecycle/request-lifecycle.js';
import type { Logger } from '../core/logger.js';
import type { Clock, Random, Sleep } from '../core/time.js';
import type { SpanTracer } from '../core/tracing/span-port.js';
import type { JobsHttpOptions } from '../doors/shared/door.js';
import { createRouteModels, type ProviderAccess } from '../families/create-route-models.js';
import { type AccessPolicy, accessPolicyFromConfig } from '../http/access-policy.js';
import type { CallerKeyCheck } from '../http/caller-auth.js';
import { createHttpApp } from '../http/create-http-app.js';
import type { HttpEnv } from '../http/http-env.js';
import type { OperatorConsoleOptions } from '../http/operator-routes.js';
import { createMemoryAdmissionStore } from '../stores/memory-admission-store.js';
import { createMemoryAnswerCache } from '../stores/memory-answer-cache.js';
import { createAjvSchemaValidator } from '../validation/ajv-schema-validator.js';
import { jobRunAdmission } from './job-run-admission.js';
import { createObservers } from './observe-gateway.js';
import { routeCapacityFor } from './route-capacity-wiring.js';
import { sha256Digest } from './sha256-digest.js';
import { systemClock, systemRandom, systemSleep, systemTimer } from './system-time.js';
import { traceLedger } from './trace-ledger.js';

/** Everything that differs between the local gateway and the API Lambda; the rest is assembled once, here. */
export interface GatewayAssembly {
  config: SwitchyardConfig;
  /** Chain sources in precedence order, given the catalog (env, SSM, config). */
  sources(catalog: Catalog): ChainSource[];
  /** True when an env override names a pipeline the config does not have. */
  envOverrides?: ((name: string) => boolean) | undefined;
  store: BreakerStore;
  /** The last-resort answer cache. Default: one in this process's memory, bounded by `answerCache`. */
  answers?: AnswerCache | undefined;
  access: ProviderAccess;
  log: Logger;
  ledger: LedgerSink;
  breakerEvents: BreakerEvents;
  callerKeys?: CallerKeyCheck | undefined;
  clock?: Clock | undefined;
  random?: Random | undefined;
  sleep?: Sleep | undefined;
  maxBodyBytes?: number | undefined;
  /** Job store and queue for `POST /v1/jobs` and `GET /v1/jobs/{id}`. Absent: no job routes. */
  jobs?: JobsHttpOptions | undefined;
  /** Operator keys and schedule readers, read per request. Default: from `config` (fixed). */
  accessPolicy?: (() => AccessPolicy) | undefined;
  /** Where admission counters live. Default: this process's memory. */
  admissionStore?: AdmissionStore | undefined;
  /** The admission settings in force, per request. Default: `config.admission` (fixed). */
  admissionSettings?: (() => Promise<AdmissionSettings>) | undefined;
  /** Hears every failed admission store call (after the log line). Default: nothing more. */
  onAdmissionStoreFailure?: ((failure: AdmissionStoreFailure) => void) | undefined;
  /** Hears how full a spend cap is after each admission (0–1; 1 on a budget refusal). Default: nothing. */
  onSpendUse?: ((limit: PlannedLimit, share: number) => void) | undefined;
  /** Where spans go (docs/design.md#traces). Absent: no spans. */
  tracer?: SpanTracer | undefined;
  /**
   * The operator console's override store (docs/operations.md#the-operator-console), when
   * `statusPage.console` is on: the same store the chain sources read the overrides from.
   */
  operator?: OperatorConsoleOptions | undefined;
}

export interface AssembledGateway {
  app: Hono<HttpEnv>;
  /** Admission of job runs against their pipeline's limits, for the workers. */
  jobAdmission: JobAdmission;
  gateway: Gateway;
  catalog: Catalog;
  store: BreakerStore;
}

/** Catalog, providers, breakers, gateway and HTTP app: the one code path both modes run. */
export function assembleGateway(options: GatewayAssembly): AssembledGateway {
  const { config, log } = options;
  const catalog = createCatalog(config);
  const staticAccess = accessPolicyFromConfig(config);
  const clock = options.clock ?? systemClock;
  // Metrics and the status page hear the same ledger lines and breaker events as everything else.
  const observers = createObservers(config, clock);
  const breakers = createBreakers({
    store: options.store,
    clock,
    policyFor: (pipeline) => catalog.policy(pipeline).breaker,
    scopeOf: stateScopeIn((pipeline) => catalog.hasPipeline(pipeline)),
    events: observers.breakerEvents(options.breakerEvents),
    routeCooling: {
      ...config.rateLimit,
      accountRouteOf: (key) => {
        const route = catalog.routes.get(key);
        return route && accountRouteId(route.providerName, route.model);
      },
    },
  });
  const tracing = options.tracer && traceLedger(options.tracer, catalog, options.clock ?? systemClock);
  // The meter sits on the ledger, so every attempt's cost reaches the settlement.
  const observed = observers.ledger(options.ledger);
  const meter = createSpendMeter(tracing ? tracing.ledger(observed) : observed);
  const admissionSettings = options.admissionSettings ?? (async () => config.admission);
  const admission = createAdmission({
    store: options.admissionStore ?? createMemoryAdmissionStore(clock),
    clock,
    settings: admissionSettings,
    onStoreFailure: (failure) => {
      const error = failure.error instanceof Error ? failure.error.name : 'unknown';
      log.warn('admission store call failed', {
        kind: failure.kind,
        policy: failure.policy,
        phase: failure.phase,
        error,
      });
      options.onAdmissionStoreFailure?.(failure);
    },
    onSpendUse: options.onSpendUse,
  });
  const gateway = createGateway({
    catalog,
    sources: options.sources(catalog),
    models: createRouteModels(catalog.routes.values(), options.access, clock, catalog.config.limits),
    breakers,
    clock,
    random: options.random ?? systemRandom,
    sleep: options.sleep ?? systemSleep,
    // An injected sleep is a test's clock: its timers must follow it.
    timer: options.sleep ? undefined : systemTimer,
    ledger: meter.sink,
    log,
    envOverrides: options.envOverrides,
    capacity: routeCapacityFor(catalog, options.admissionStore, clock, log),
    output: {
      validator: createAjvSchemaValidator({ bounds: config.structuredOutput }),
      answers: options.answers ?? createMemoryAnswerCache(config.answerCache),
      digest: sha256Digest,
    },
  });
  const app = createHttpApp({
    gateway,
    catalog,
    log,
    maxBodyBytes: options.maxBodyBytes,
    callerKeys: options.callerKeys,
    jobs: options.jobs,
    bounds: config.limits,
    access: options.accessPolicy ?? (() => staticAccess),
    admission: {
      admission,
      meter,
      now: () => clock.now(),
      jobQuota: async (key) => jobQuotaOf(await admissionSettings(), key, config.jobs.maxQueuedPerKey),
    },
    adHocChains: adHocGate(catalog, admissionSettings),
    tracing,
    observe: observers.routes(gateway, admission, options.operator !== undefined),
    cors: config.cors,
    operator: options.operator,
    clock,
  });
  const jobAdmission = jobRunAdmission(admission, meter, catalog);
  return { app, gateway, catalog, store: options.store, jobAdmission };
}

/** The callers' ad-hoc chain settings in force (the config's, or their SSM override), per request. */
function adHocGate(catalog: Catalog, settings: () => Promise<AdmissionSettings>): AdHocGate {
  const canonical = (chain: string) => adHocIdOf(catalog, chain);
  return async (keyName, target) =>
    target.kind === 'chain' ? adHocRefusal(await settings(), keyName, target.pipeline, canonical) : undefined;
}
