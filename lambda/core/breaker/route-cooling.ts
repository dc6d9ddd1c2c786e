/**
 * Cooling of an **account route** (docs/concepts.md#account-route-cooling): a 429 is a statement about
 * a provider account's quota for one upstream model, so it cools that (provider, upstream model id)
 * pair for every pipeline and every model key that reaches it, not only for the pipeline that got it.
 * Pure: every time comes in as a parameter.
 */

import type { AccountProbe } from './account-probe.js';

/** What a store keeps for one account route. */
export interface RouteCooling {
  /** Do not select before this time (ms since epoch); not cooling when absent or past. */
  coolUntil?: number | undefined;
  /** When the 429 that set `coolUntil` happened (ms since epoch). */
  cooledAt?: number | undefined;
  /** The pipeline whose 429 set `coolUntil`. */
  cooledBy?: string | undefined;
  /** The account route's probe gate (docs/concepts.md#the-probe-schedule); absent: never probed. */
  probe?: AccountProbe | undefined;
}

/** One 429 as route cooling sees it. */
export interface RateLimitSample {
  /** When the attempt ended (ms since epoch). */
  at: number;
  /** The pipeline that got the 429. */
  pipeline: string;
  /** The upstream's `Retry-After`, in ms, when it sent one. */
  retryAfterMs?: number | undefined;
}

/** How long a 429 cools its account route. */
export interface RouteCoolingPolicy {
  /** Cooling without a `Retry-After`, in ms (config `rateLimit.coolMs`). */
  coolMs: number;
  /** Upper bound of any cooling, in ms: the recording pipeline's `breaker.openMs`, as for its own breaker. */
  maxMs: number;
}

export const NOT_COOLING: Readonly<RouteCooling> = Object.freeze({});

/** Separates the provider from the upstream model id in an account route id (never in a provider name a chain can use). */
const ACCOUNT_SEPARATOR = '\u0000';

/** The id of the account route (provider entry, upstream model id): the key of its cooling. */
export function accountRouteId(provider: string, upstreamModel: string): string {
  return `${provider}${ACCOUNT_SEPARATOR}${upstreamModel}`;
}

/** The provider and upstream model id of an account route id. */
export function parseAccountRouteId(id: string): { provider: string; model: string } {
  const at = id.indexOf(ACCOUNT_SEPARATOR);
  return at < 0 ? { provider: id, model: '' } : { provider: id.slice(0, at), model: id.slice(at + 1) };
}

/** When a 429 at `sample.at` stops cooling its route: its `Retry-After`, else `coolMs`, at most `maxMs`. */
export function coolingEnd(sample: RateLimitSample, policy: RouteCoolingPolicy): number {
  const hinted = sample.retryAfterMs !== undefined && sample.retryAfterMs > 0;
  return sample.at + Math.min(hinted ? (sample.retryAfterMs as number) : policy.coolMs, policy.maxMs);
}

/** The state after one 429: the later of the two cooling ends wins, with who set it. */
export function applyRateLimit(
  state: RouteCooling,
  sample: RateLimitSample,
  policy: RouteCoolingPolicy,
): RouteCooling {
  const until = coolingEnd(sample, policy);
  if (state.coolUntil !== undefined && state.coolUntil >= until) return state;
  const cooled: RouteCooling = { coolUntil: until, cooledAt: sample.at, cooledBy: sample.pipeline };
  if (state.probe) cooled.probe = state.probe;
  return cooled;
}

/** The later-ending of two states (what a reader keeps of its own write and a store's answer). */
export function laterCooling(a: RouteCooling | undefined, b: RouteCooling | undefined): RouteCooling {
  if (!a) return b ?? NOT_COOLING;
  if (!b) return a;
  return (b.coolUntil ?? 0) > (a.coolUntil ?? 0) ? b : a;
}

/** True while the route cools: up to, not including, `coolUntil`. */
export function isRouteCooling(state: RouteCooling | undefined, now: number): boolean {
  return state?.coolUntil !== undefined && state.coolUntil > now;
}
