import { setBounded } from '../bounded-map.js';
import {
  type AccountProbe,
  applyGateClaim,
  applyGateOutcome,
  type GateOutcome,
  probeGate,
} from './account-probe.js';
import type { BreakerPolicy } from './breaker-policy.js';
import type { AttemptSample } from './breaker-state.js';
import type { BreakersOptions } from './breakers.js';
import type { RouteCoolingReader } from './route-cooling-reader.js';

/** The account-route probe gate as `createBreakers` uses it: by route key in, by account route in the store. */
export interface AccountProbeGate {
  /**
   * Before a breaker that opened at `openedAt` claims its probe slot: `taken`, this call took the
   * gate in the store (one probe across every pipeline and container: the breaker's own claim
   * adds nothing); `pass`, the probe may go on its breaker's own claim (no account route, the gate
   * is clear, or the store failed and this process probes on its own); `held`, it may not.
   * Never throws.
   */
  enter(
    pipeline: string,
    routeKey: string,
    openedAt: number | undefined,
    policy: BreakerPolicy,
  ): Promise<'taken' | 'pass' | 'held'>;
  /** The breaker's own claim was lost after `enter` let it pass: gives back a gate it took at once. */
  leave(pipeline: string, routeKey: string, policy: BreakerPolicy): Promise<void>;
  /**
   * A probe's outcome (`sample.probe`), with the prober's next slot: a failure shuts the gate until
   * then; a success opens it, when this process took it. Never throws.
   */
  settle(
    pipeline: string,
    routeKey: string,
    sample: AttemptSample,
    nextSlot: number,
    policy: BreakerPolicy,
  ): Promise<void>;
}

/**
 * The shared probe gate of docs/concepts.md#the-probe-schedule over the breaker store: its state is
 * read with the account routes' cooling (the same per-container cache, no read of its own); taking
 * it is one conditional write, a probe's outcome another.
 */
export function createAccountProbeGate(
  options: BreakersOptions,
  routes: RouteCoolingReader,
): AccountProbeGate {
  const { store, clock, events = {}, routeCooling: cooling } = options;
  // The gates this process took, by pipeline and route key: only their probes' successes open a gate.
  const taken = new Map<string, string>();
  const keyOf = (pipeline: string, routeKey: string) => `${pipeline}\u0000${routeKey}`;

  const stateOf = async (route: string): Promise<AccountProbe | undefined> =>
    (await routes.read([route])).get(route)?.probe;

  const write = async (route: string, outcome: GateOutcome, policy: BreakerPolicy) => {
    try {
      const after = await store.settleRouteProbe(route, outcome, policy.openMs);
      if (after) routes.wroteProbe(route, after);
    } catch (error) {
      events.onStoreError?.('probe-route', error);
      routes.wroteProbe(route, applyGateOutcome(await stateOf(route), outcome));
    }
  };

  return {
    async enter(pipeline, routeKey, openedAt, policy) {
      const route = cooling?.accountRouteOf(routeKey);
      if (route === undefined) return 'pass';
      const state = await stateOf(route);
      const now = clock.now();
      const gate = probeGate(state, openedAt, now);
      if (gate !== 'free') return gate === 'clear' ? 'pass' : 'held';
      const claim = { pipeline, now, leaseMs: policy.probeLeaseMs };
      let entered: 'taken' | 'pass' | 'held';
      try {
        entered = (await store.claimRouteProbe(route, claim, policy.openMs)) ? 'taken' : 'held';
      } catch (error) {
        events.onStoreError?.('probe-route', error);
        entered = 'pass'; // only this process can know; its breaker's own claim keeps one probe per slot
      }
      // Won or lost (another container holds it), this container treats the gate as held for the
      // lease until its next read or the probe's outcome.
      routes.wroteProbe(route, applyGateClaim(state, claim));
      if (entered !== 'held') setBounded(taken, keyOf(pipeline, routeKey), route);
      return entered;
    },

    async leave(pipeline, routeKey, policy) {
      const key = keyOf(pipeline, routeKey);
      const route = taken.get(key);
      if (route === undefined) return;
      taken.delete(key);
      const now = clock.now();
      await write(route, { pipeline, at: now, ok: false, nextSlot: now }, policy);
    },

    async settle(pipeline, routeKey, sample, nextSlot, policy) {
      const route = cooling?.accountRouteOf(routeKey);
      if (route === undefined) return;
      const key = keyOf(pipeline, routeKey);
      const held = taken.get(key) === route;
      taken.delete(key);
      const ok = sample.outcome === 'ok';
      // A success through a clear gate changes nothing; any failed probe shuts it.
      if (ok && !held) return;
      await write(route, { pipeline, at: sample.at, ok, nextSlot }, policy);
    },
  };
}
