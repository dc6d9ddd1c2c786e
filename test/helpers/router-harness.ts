import { type BreakerPolicy, DEFAULT_BREAKER_POLICY } from '../../lambda/core/breaker/breaker-policy.js';
import type { BreakerStore } from '../../lambda/core/breaker/breaker-store.js';
import {
  type BreakerOpened,
  createBreakers,
  type RouteCoolingOptions,
} from '../../lambda/core/breaker/breakers.js';
import {
  CAPABILITIES,
  type Capabilities,
  type Capability,
} from '../../lambda/core/capabilities/capability.js';
import type { RouteCapacity } from '../../lambda/core/capacity/route-capacity.js';
import type { ChatRequest } from '../../lambda/core/chat/chat-model.js';
import type { Tier } from '../../lambda/core/dsl/types.js';
import type {
  AttemptLedgerEntry,
  LedgerEntry,
  RequestLedgerEntry,
} from '../../lambda/core/ledger/ledger-entry.js';
import { routeGenerate } from '../../lambda/core/router/route-chat.js';
import { createRouteSignals } from '../../lambda/core/router/route-signals.js';
import type { AttemptTimeouts, RouteModel, RoutePolicy } from '../../lambda/core/router/route-types.js';
import { createMemoryBreakerStore } from '../../lambda/stores/memory-breaker-store.js';
import { seededRandom } from '../../lambda/wiring/seeded-random.js';
import { createFakeClock } from './fake-clock.js';
import { type ScriptedModel, type Step, scriptedModel } from './scripted-model.js';
import { uniformTimeouts } from './uniform-timeouts.js';

/** `[['A','B'],['C']]` → tiers `(A|B),C` with weight 1 each. */
export function tiersOf(groups: string[][]): Tier[] {
  return groups.map((members) => ({ members: members.map((key) => ({ key, weight: 1 })) }));
}

export interface HarnessOptions {
  /** Scripted steps per route key (a single-route model's route key is its model key). */
  models: Record<string, Step[]>;
  /** Route keys of each model with several routes, in order, e.g. `{ A: ['A', 'A~azure'] }`. */
  routes?: Record<string, string[]>;
  tiers: Tier[];
  policy?: Partial<RoutePolicy>;
  breaker?: Partial<BreakerPolicy>;
  timeoutMs?: number;
  /** Every route's limits; wins over `timeoutMs`. */
  timeouts?: AttemptTimeouts;
  seed?: number;
  store?: BreakerStore;
  /** Account-route cooling; absent: a 429 acts on the pipeline's own breaker only. */
  routeCooling?: RouteCoolingOptions;
  /** Bulkheads and declared quotas; absent: none. */
  capacity?: RouteCapacity;
  /** Per route key, the capabilities it lacks; a route not named carries everything. */
  lacks?: Record<string, Capability[]>;
}

/** Every capability but `lacking`. */
function capabilitiesWithout(lacking: readonly Capability[]): Capabilities {
  return Object.fromEntries(CAPABILITIES.map((c) => [c, !lacking.includes(c)])) as Capabilities;
}

/** The real router over scripted models, a fake clock, a seeded random source and a memory store. */
export function createRouterHarness(options: HarnessOptions) {
  const clock = createFakeClock();
  const store = options.store ?? createMemoryBreakerStore();
  const ledger: LedgerEntry[] = [];
  const opened: BreakerOpened[] = [];
  const storeErrors: string[] = [];
  const breakerPolicy: BreakerPolicy = { ...DEFAULT_BREAKER_POLICY, ...options.breaker };
  const policy: RoutePolicy = {
    maxAttempts: 3,
    deadlineMs: 15_000,
    fallbackOnContextLength: false,
    substitution: 'allow',
    ...options.policy,
  };
  const breakers = createBreakers({
    store,
    clock,
    policyFor: () => breakerPolicy,
    events: { onOpened: (e) => opened.push(e), onStoreError: (op) => storeErrors.push(op) },
    routeCooling: options.routeCooling,
  });
  const models = new Map<string, ScriptedModel>(
    Object.entries(options.models).map(([key, steps]) => [key, scriptedModel(key, clock, steps)]),
  );
  const routes = new Map<string, RouteModel>(
    [...models].map(([key, model]) => [
      key,
      {
        model,
        timeouts: options.timeouts ?? uniformTimeouts(options.timeoutMs ?? 10_000),
        price: { inputPerMTok: 1, outputPerMTok: 2 },
        ...(options.lacks?.[key] ? { capabilities: capabilitiesWithout(options.lacks[key]) } : {}),
      },
    ]),
  );
  const deps = {
    clock,
    random: seededRandom(options.seed ?? 42),
    sleep: clock.sleep,
    breakers,
    models: (key: string) => routes.get(key),
    routesOf: (model: string) => options.routes?.[model] ?? [model],
    ledger: (entry: LedgerEntry) => ledger.push(entry),
    signals: createRouteSignals(clock.now),
    capacity: options.capacity,
  };
  let requests = 0;
  return {
    clock,
    store,
    ledger,
    opened,
    storeErrors,
    breakers,
    models,
    deps,
    /** Calls so far per model key. */
    calls: (key: string) => models.get(key)?.calls.length ?? 0,
    attemptLines: () => ledger.filter((e): e is AttemptLedgerEntry => e.type === 'attempt'),
    requestLines: () => ledger.filter((e): e is RequestLedgerEntry => e.type === 'request'),
    /** Routes a plain request; `maxTokens` is the caller's `max_tokens` (default none). */
    route(
      extra: {
        pipeline?: string;
        signal?: AbortSignal;
        tiers?: Tier[];
        clientRequestId?: string;
        maxTokens?: number;
        /** The request's fields beyond its one user message (e.g. `messages`, `tools`). */
        chat?: Partial<ChatRequest>;
      } = {},
    ) {
      requests += 1;
      return routeGenerate(
        {
          requestId: `req-${requests}`,
          clientRequestId: extra.clientRequestId,
          pipeline: extra.pipeline ?? 'p',
          tiers: extra.tiers ?? options.tiers,
          policy,
          signal: extra.signal,
          stream: false,
        },
        deps,
        { messages: [{ role: 'user', content: 'hi' }], maxTokens: extra.maxTokens, ...extra.chat },
      );
    },
  };
}
