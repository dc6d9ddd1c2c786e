import type { AdmissionStore } from '../admission/admission-store.js';
import type { PlannedLimit } from '../admission/limit-plan.js';
import { accountRouteId } from '../breaker/route-cooling.js';
import type { CapacitySettings } from '../catalog/capacity-config-schema.js';
import type { Clock } from '../time.js';
import type { GiveBack, InFlightCounter } from './in-flight.js';
import { createQuotaCounter } from './quota-counter.js';
import type { CapacityGrant, RouteCapacity } from './route-capacity.js';

/** Where a route key calls: its provider's name and the upstream model id. */
export interface RouteTarget {
  provider: string;
  model: string;
}

export interface RouteCapacityOptions {
  settings: CapacitySettings;
  /** The provider and upstream model of a route key; undefined for a route the catalog lacks. */
  routeOf(routeKey: string): RouteTarget | undefined;
  /** In-flight counts: `createMemoryInFlight`, or `createSharedInFlight` with `capacity.shared`. */
  inFlight: InFlightCounter;
  /** Where quota reservations are counted: the admission store (memory, or the breaker table). */
  quotaStore: AdmissionStore;
  clock: Clock;
  /** Hears a store error; the attempt is granted anyway (the breakers still guard the route). */
  onStoreError?(error: unknown): void;
}

/** Retry-After of a full bulkhead, in ms: in-flight attempts end within seconds. */
export const FULL_RETRY_AFTER_MS = 1_000;

interface Bulkhead {
  counter: string;
  max: number;
}

interface Quota {
  limit: PlannedLimit;
  /** `requests`: 1 per attempt; `tokens`: the attempt's estimate. */
  kind: 'requests' | 'tokens';
}

/**
 * Bulkheads and declared quotas of the catalog's routes (docs/concepts.md#bulkheads,
 * docs/concepts.md#declared-quotas). A bulkhead counts per provider (`capacity.providers`) and per
 * route key (`capacity.routes`); a quota per account route (provider + upstream model, as route
 * cooling keys it), so every model key and pipeline that calls it shares it.
 */
export function createRouteCapacity(options: RouteCapacityOptions): RouteCapacity {
  const { settings, clock, inFlight } = options;
  const quotas = createQuotaCounter(options.quotaStore, settings.quotaMinuteMs);
  const bulkheadsOf = (routeKey: string): Bulkhead[] => {
    const target = options.routeOf(routeKey);
    const found: Bulkhead[] = [];
    const provider = target && settings.providers[target.provider];
    if (target && provider) found.push({ counter: `provider:${target.provider}`, max: provider.maxInFlight });
    const route = settings.routes[routeKey];
    if (route) found.push({ counter: `route:${routeKey}`, max: route.maxInFlight });
    return found;
  };
  const quotasOf = (routeKey: string): Quota[] => {
    const target = options.routeOf(routeKey);
    const declared = target && settings.quotas[target.provider]?.[target.model];
    if (!target || !declared) return [];
    const name = accountRouteId(target.provider, target.model);
    const field = `capacity.quotas.${target.provider}.${target.model}`;
    const found: Quota[] = [];
    if (declared.requestsPerMinute !== undefined) {
      const limit = { scope: 'route', name, kind: 'requests', cap: declared.requestsPerMinute } as const;
      found.push({ kind: 'requests', limit: { ...limit, field: `${field}.requestsPerMinute` } });
    }
    if (declared.tokensPerMinute !== undefined) {
      const limit = { scope: 'route', name, kind: 'tokens', cap: declared.tokensPerMinute } as const;
      found.push({ kind: 'tokens', limit: { ...limit, field: `${field}.tokensPerMinute` } });
    }
    return found;
  };
  const giveAll = (gives: GiveBack[]) => {
    for (const give of gives) give().catch((error: unknown) => options.onStoreError?.(error));
  };

  return {
    limits: (routeKey) => bulkheadsOf(routeKey).length > 0 || quotasOf(routeKey).length > 0,

    async acquire(routeKey, tokens): Promise<CapacityGrant> {
      const now = clock.now();
      const slots: GiveBack[] = [];
      const reservations: GiveBack[] = [];
      try {
        for (const bulkhead of bulkheadsOf(routeKey)) {
          const give = await inFlight.take(bulkhead.counter, bulkhead.max, now);
          if (!give) {
            giveAll(slots);
            return { ok: false, reason: 'full', retryAfterMs: FULL_RETRY_AFTER_MS };
          }
          slots.push(give);
        }
      } catch (error) {
        // Only a counter without a fallback throws: the attempt goes, without the slots it could not take.
        options.onStoreError?.(error);
      }
      try {
        for (const quota of quotasOf(routeKey)) {
          const amount = quota.kind === 'requests' ? 1 : Math.max(1, tokens);
          const taken = await quotas.take(quota.limit, amount, now);
          if (!taken.ok) {
            giveAll([...slots, ...reservations]);
            return { ok: false, reason: 'quota', retryAfterMs: Math.max(1_000, taken.resetAt - now) };
          }
          // A later refusal gives the reservation back, as the in-flight slots.
          reservations.push(taken.giveBack);
        }
      } catch (error) {
        // A quota the store cannot count lets the attempt go; its in-flight slots stay taken.
        options.onStoreError?.(error);
      }
      // The quota reservations stay spent: only the in-flight slots come back at the attempt's end.
      let released = false;
      return {
        ok: true,
        lease: {
          release() {
            if (released) return;
            released = true;
            giveAll(slots);
          },
        },
      };
    },
  };
}

/** Tokens an attempt reserves under a `tokensPerMinute` quota when the caller sets no `max_tokens`. */
export const DEFAULT_QUOTA_OUTPUT_TOKENS = 1_000;

/**
 * The tokens one attempt reserves under a `tokensPerMinute` quota: the input at 4 characters a
 * token (the messages' JSON text) plus `max_tokens`, or {@link DEFAULT_QUOTA_OUTPUT_TOKENS}.
 */
export function attemptTokenEstimate(inputChars: number, maxTokens: number | undefined): number {
  return Math.ceil(inputChars / 4) + (maxTokens ?? DEFAULT_QUOTA_OUTPUT_TOKENS);
}
