/**
 * The routing strategies the spike simulator compares on the same trace. All but one run
 * the REAL attempt loop (`routeGenerate`); they differ only in chain, attempts and breakers.
 */
import { type BreakerPolicy, DEFAULT_BREAKER_POLICY } from '../../lambda/core/breaker/breaker-policy.js';
import { type Breakers, createBreakers } from '../../lambda/core/breaker/breakers.js';
import { accountRouteId } from '../../lambda/core/breaker/route-cooling.js';
import { createRouteCapacity } from '../../lambda/core/capacity/create-route-capacity.js';
import { createMemoryInFlight } from '../../lambda/core/capacity/in-flight.js';
import type { RouteCapacity } from '../../lambda/core/capacity/route-capacity.js';
import { capacitySchema } from '../../lambda/core/catalog/capacity-config-schema.js';
import { defaultRoutePolicy } from '../../lambda/core/catalog/catalog.js';
import { deriveTimeouts } from '../../lambda/core/catalog/derive-timeouts.js';
import { rateLimitSchema } from '../../lambda/core/catalog/rate-limit-config-schema.js';
import type { ChatModel, ChatRequest } from '../../lambda/core/chat/chat-model.js';
import { parseChain } from '../../lambda/core/dsl/parse-chain.js';
import type { Tier } from '../../lambda/core/dsl/types.js';
import { routeGenerate } from '../../lambda/core/router/route-chat.js';
import type { RouteModel, RoutePolicy, RouterDeps } from '../../lambda/core/router/route-types.js';
import type { Random } from '../../lambda/core/time.js';
import { createMemoryAdmissionStore } from '../../lambda/stores/memory-admission-store.js';
import { createMemoryBreakerStore } from '../../lambda/stores/memory-breaker-store.js';
import { createCooldownRouter } from './cooldown-router.js';
import type { VirtualTime } from './virtual-time.js';

/** What a strategy is given: the virtual clock, the simulated models, a seeded random source. */
export interface StrategyContext {
  time: VirtualTime;
  models: ReadonlyMap<string, ChatModel>;
  random: Random;
  /** Upper bound of one attempt, in ms. */
  timeoutMs: number;
  /** Each provider's requests per minute, by model key, for strategies that declare quotas. */
  quotas?: ReadonlyMap<string, { perMinute: number; burstSeconds: number }>;
}

/** Routes one request of `pipeline`; resolves whether the caller got an answer. */
export type Route = (pipeline: string, requestId: string) => Promise<boolean>;

export interface Strategy {
  name: string;
  build(context: StrategyContext): Route;
}

const CHAT: ChatRequest = { messages: [{ role: 'user', content: 'hi' }] };

/** A chain's tiers; every name in the scenario is a model key. */
export function tiersOf(chain: string): Tier[] {
  const parsed = parseChain(chain, { resolve: (key) => ({ kind: 'model', key }) });
  if (parsed.warnings.length > 0) throw new Error(`bad chain '${chain}': ${parsed.warnings[0]?.message}`);
  return parsed.tiers;
}

/** Breakers that never open and never cool: the loop still skips models that failed in the request. */
const NO_BREAKERS: Breakers = {
  read: async () => new Map(),
  record: async () => {},
  routeCooling: async () => new Map(),
  claimProbe: async () => false,
};

/** A strategy that runs the real attempt loop over `chain` with `breakers`. */
function realLoop(
  chain: string,
  policy: Partial<RoutePolicy>,
  breakers: (context: StrategyContext) => Breakers,
  capacity?: (context: StrategyContext) => RouteCapacity,
): (context: StrategyContext) => Route {
  return (context) => {
    const tiers = tiersOf(chain);
    const routes = new Map<string, RouteModel>(
      [...context.models].map(([key, model]) => [
        key,
        { model, timeouts: deriveTimeouts('bench', { timeoutMs: context.timeoutMs }) },
      ]),
    );
    const deps: RouterDeps = {
      clock: context.time,
      random: context.random,
      sleep: context.time.sleep,
      breakers: breakers(context),
      models: (key) => routes.get(key),
      ledger: () => {},
      capacity: capacity?.(context),
    };
    const full: RoutePolicy = { ...defaultRoutePolicy(), ...policy };
    return async (pipeline, requestId) => {
      const result = await routeGenerate(
        { requestId, pipeline, tiers, policy: full, stream: false },
        deps,
        CHAT,
      );
      return result.ok;
    };
  };
}

/** The six strategies, in the order they are printed. */
export function strategies(chain: string, single: string): Strategy[] {
  const groups = tiersOf(chain).map((tier) => tier.members.map((m) => m.key));
  const firstTier = (key: string) => groups[0]?.includes(key) ?? false;
  return [
    {
      name: `single provider (${single}, 1 attempt)`,
      build: realLoop(single, { maxAttempts: 1 }, () => NO_BREAKERS),
    },
    {
      name: 'static fallback, no breakers',
      build: realLoop(chain, {}, () => NO_BREAKERS),
    },
    {
      name: 'LiteLLM-like cooldown',
      build: (context) => {
        const route = createCooldownRouter({
          groups,
          models: (key) => context.models.get(key),
          clock: context.time,
          sleep: context.time.sleep,
          random: context.random,
          timeoutMs: context.timeoutMs,
        });
        return () => route();
      },
    },
    {
      name: 'Switchyard, per-pipeline cooling only',
      build: realLoop(chain, {}, (context) =>
        createBreakers({
          store: createMemoryBreakerStore(),
          clock: context.time,
          policyFor: () => DEFAULT_BREAKER_POLICY,
        }),
      ),
    },
    { name: 'Switchyard defaults', build: realLoop(chain, {}, switchyard(DEFAULT_BREAKER_POLICY)) },
    // Recovery `ramp` with the seed's numbers (30 s probes, 3 successes, 10/25/50/100 %, 1 min each).
    { name: 'Switchyard with ramp', build: realLoop(chain, {}, switchyard(RAMP_POLICY)) },
    // The defaults, with each provider's quota declared (issue 29 item 3, docs/concepts.md#declared-quotas):
    // first its nominal rpm, which the providers' 15 s burst buckets do not honour in a burst, then
    // the rate a bucket guarantees in any minute (its depth: a full burst, no refill counted on).
    {
      name: 'Switchyard defaults, quotas declared',
      build: realLoop(chain, {}, switchyard(DEFAULT_BREAKER_POLICY), declaredQuotas('rpm')),
    },
    {
      name: 'Switchyard defaults, tier-1 quotas declared at the burst',
      build: realLoop(chain, {}, switchyard(DEFAULT_BREAKER_POLICY), declaredQuotas('burst', firstTier)),
    },
  ];
}

/**
 * Each simulated provider's quota, declared as the account route's `requestsPerMinute` (the
 * scenario's providers are one account each, serving one model of the same name): `rpm`, its
 * nominal requests per minute; `burst`, the depth of its bucket (what any minute surely allows)
 * for the providers `atBurst` names, the nominal rate for the others.
 */
function declaredQuotas(
  as: 'rpm' | 'burst',
  atBurst: (key: string) => boolean = () => true,
): (context: StrategyContext) => RouteCapacity {
  return (context) => {
    const quotas: Record<string, Record<string, { requestsPerMinute: number }>> = {};
    for (const key of context.models.keys()) {
      const quota = context.quotas?.get(key);
      if (!quota) continue;
      const burst = as === 'burst' && atBurst(key);
      const rpm = burst ? Math.floor((quota.perMinute * quota.burstSeconds) / 60) : quota.perMinute;
      quotas[key] = { [key]: { requestsPerMinute: rpm } };
    }
    const settings = capacitySchema.parse({ quotas });
    return createRouteCapacity({
      settings,
      clock: context.time,
      inFlight: createMemoryInFlight(settings.leaseMs),
      quotaStore: createMemoryAdmissionStore(context.time),
      routeOf: (key) => ({ provider: key, model: key }),
    });
  };
}

/** The default breakers but for recovery `ramp` (docs/concepts.md#breaker-recovery). */
export const RAMP_POLICY: BreakerPolicy = { ...DEFAULT_BREAKER_POLICY, recovery: 'ramp' };

/** Switchyard's breakers with `policy`, a memory store and account-route cooling. */
function switchyard(policy: BreakerPolicy): (context: StrategyContext) => Breakers {
  return (context) =>
    createBreakers({
      store: createMemoryBreakerStore(),
      clock: context.time,
      policyFor: () => policy,
      // Each simulated provider is one account serving one model: a 429 cools it for every pipeline.
      routeCooling: { ...rateLimitSchema.parse({}), accountRouteOf: (key) => accountRouteId(key, key) },
    });
}
