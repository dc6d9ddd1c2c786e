import type { SwitchyardConfig } from '../config/switchyard-config.js';
import type { AdmissionStore } from '../core/admission/admission-store.js';
import type { BreakerStore } from '../core/breaker/breaker-store.js';
import {
  type ChainParameterStore,
  createConfigChainSource,
  createEnvChainSource,
  createSsmChainSource,
} from '../core/catalog/chain-sources.js';
import type { AnswerCache } from '../core/last-resort/answer-cache.js';
import type { LedgerSink } from '../core/ledger/ledger-entry.js';
import type { Logger } from '../core/logger.js';
import type { Clock, Random, Sleep } from '../core/time.js';
import type { SpanTracer } from '../core/tracing/span-port.js';
import type { JobsHttpOptions } from '../doors/shared/door.js';
import type { ProviderAccess } from '../families/create-route-models.js';
import type { AccessPolicy } from '../http/access-policy.js';
import type { CallerKeyCheck } from '../http/caller-auth.js';
import type { OperatorConsoleOptions } from '../http/operator-routes.js';
import { createStaticCallerKeys } from '../http/static-caller-keys.js';
import { createMemoryBreakerStore } from '../stores/memory-breaker-store.js';
import { type AssembledGateway, assembleGateway } from './assemble-gateway.js';
import { breakerLogEvents } from './breaker-log-events.js';
import { envProviderAccess } from './env-provider-access.js';

export interface LocalGatewayOptions {
  config: SwitchyardConfig;
  env: NodeJS.ProcessEnv;
  log: Logger;
  ledger: LedgerSink;
  /** Default: a memory store for this process. */
  store?: BreakerStore | undefined;
  /** The last-resort answer cache; default: in this process's memory. */
  answers?: AnswerCache | undefined;
  /** Default: keys from `apiKeyEnv`, Bedrock credentials from the AWS SDK's chain. */
  access?: ProviderAccess | undefined;
  clock?: Clock | undefined;
  random?: Random | undefined;
  sleep?: Sleep | undefined;
  maxBodyBytes?: number | undefined;
  /** Job store and queue for `POST /v1/jobs` and `GET /v1/jobs/{id}`. Absent: no job routes. */
  jobs?: JobsHttpOptions | undefined;
  /** Caller keys; default `auth.keys` of `config`, fixed (serve passes reloadable ones). */
  callerKeys?: CallerKeyCheck | undefined;
  /** Operator keys and schedule readers; default from `config`, fixed. */
  accessPolicy?: (() => AccessPolicy) | undefined;
  /** Admission counters; default: this process's memory (`config.admission` is the settings). */
  admissionStore?: AdmissionStore | undefined;
  /**
   * The operators' overrides (`<prefix>/chains/<pipeline>`), between env and config, read on every
   * request. Default: none (a local gateway routes by env and config).
   */
  overrides?: ChainParameterStore | undefined;
  /** Where request and attempt spans go (`startTracing`). Absent: no spans. */
  tracer?: SpanTracer | undefined;
  /** The operator console's endpoints on this store (`statusPage.console`); pass the same store as `overrides`. */
  operator?: OperatorConsoleOptions | undefined;
}

export type LocalGateway = AssembledGateway;

/** Wires the gateway for one machine: env and config chains, keys from the environment, memory breakers by default. */
export function createLocalGateway(options: LocalGatewayOptions): LocalGateway {
  const { config, env, log } = options;
  return assembleGateway({
    config,
    sources: (catalog) => [
      createEnvChainSource(env),
      ...(options.overrides ? [createSsmChainSource(options.overrides)] : []),
      createConfigChainSource(catalog),
    ],
    envOverrides: (name) => (env[name]?.trim() ?? '') !== '',
    store: options.store ?? createMemoryBreakerStore(),
    answers: options.answers,
    access: options.access ?? envProviderAccess(config, env),
    log,
    ledger: options.ledger,
    breakerEvents: breakerLogEvents(log),
    callerKeys: options.callerKeys ?? createStaticCallerKeys(config.auth?.keys),
    accessPolicy: options.accessPolicy,
    clock: options.clock,
    random: options.random,
    sleep: options.sleep,
    maxBodyBytes: options.maxBodyBytes,
    jobs: options.jobs,
    admissionStore: options.admissionStore,
    tracer: options.tracer,
    operator: options.operator,
  });
}
