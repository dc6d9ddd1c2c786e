/**
 * What one container has seen of each route lately (docs/concepts.md#selection-strategies): a
 * peak-EWMA of its latency, a decaying success rate and the calls in flight now. Fed by the
 * attempt loop's hooks, read by the `adaptive` and `cost` strategies. Kept in memory per
 * container, never shared: each container judges from its own calls.
 */

/** How fast the signals forget, in ms. */
export interface RouteSignalOptions {
  /**
   * Time constant of the latency EWMA, in ms: a sample's weight falls to 1/e after this long.
   * A slower sample than the average replaces it at once (the "peak"). Default 10000.
   */
  latencyDecayMs?: number | undefined;
  /** Time constant of the success and failure counts, in ms. Default 30000. */
  outcomeDecayMs?: number | undefined;
}

/** The signals' defaults, in ms. */
export const ROUTE_SIGNAL_DEFAULTS = Object.freeze({ latencyDecayMs: 10_000, outcomeDecayMs: 30_000 });

/** What a strategy reads of one route at one instant. */
export interface RouteSignal {
  /** Peak-EWMA latency in ms (time to first byte for streams); undefined before any sample. */
  latencyMs: number | undefined;
  /**
   * How much the latency still says, 0–1: `exp(-age / latencyDecayMs)` since its last sample. A
   * strategy lets a stale latency drift back to a neutral value, so a route once slow is tried again.
   */
  freshness: number;
  /**
   * Recent success rate, 0–1: decayed successes + 1 over decayed successes + failures + 1 (one
   * success as a prior, so an unknown route reads 1).
   */
  successRate: number;
  /** Attempts on this route in flight in this container now. */
  inFlight: number;
}

/** One finished attempt as a signal sample. */
export interface SignalSample {
  /** True for an answer (or a committed stream); false for a failure that counts against the route. */
  ok: boolean;
  /** The attempt's latency in ms, when it says something about the route's speed. */
  latencyMs?: number | undefined;
}

export interface RouteSignals {
  /** An attempt on `route` starts: one more in flight. */
  started(route: string): void;
  /** An attempt on `route` is over (answered, failed or its stream ended): one fewer in flight. */
  finished(route: string): void;
  /** Records what an attempt showed about `route`. */
  observe(route: string, sample: SignalSample): void;
  read(route: string): RouteSignal;
}

interface RouteState {
  latencyMs: number | undefined;
  latencyAt: number;
  ok: number;
  failed: number;
  countsAt: number;
  inFlight: number;
}

/** The signals of one container; `now` is the injected clock (epoch ms). */
export function createRouteSignals(now: () => number, options: RouteSignalOptions = {}): RouteSignals {
  const latencyDecayMs = options.latencyDecayMs ?? ROUTE_SIGNAL_DEFAULTS.latencyDecayMs;
  const outcomeDecayMs = options.outcomeDecayMs ?? ROUTE_SIGNAL_DEFAULTS.outcomeDecayMs;
  const states = new Map<string, RouteState>();
  const stateOf = (route: string): RouteState => {
    let state = states.get(route);
    if (!state) {
      const at = now();
      state = { latencyMs: undefined, latencyAt: at, ok: 0, failed: 0, countsAt: at, inFlight: 0 };
      states.set(route, state);
    }
    return state;
  };
  const decay = (since: number, at: number, tau: number) => Math.exp(-Math.max(0, at - since) / tau);

  return {
    started(route) {
      stateOf(route).inFlight += 1;
    },
    finished(route) {
      const state = stateOf(route);
      state.inFlight = Math.max(0, state.inFlight - 1);
    },
    observe(route, { ok, latencyMs }) {
      const state = stateOf(route);
      const at = now();
      const kept = decay(state.countsAt, at, outcomeDecayMs);
      state.ok = state.ok * kept + (ok ? 1 : 0);
      state.failed = state.failed * kept + (ok ? 0 : 1);
      state.countsAt = at;
      if (latencyMs === undefined) return;
      const old = state.latencyMs;
      const weight = decay(state.latencyAt, at, latencyDecayMs);
      state.latencyMs =
        old === undefined || latencyMs > old ? latencyMs : old * weight + latencyMs * (1 - weight);
      state.latencyAt = at;
    },
    read(route) {
      const state = states.get(route);
      if (!state) return { latencyMs: undefined, freshness: 0, successRate: 1, inFlight: 0 };
      const at = now();
      const kept = decay(state.countsAt, at, outcomeDecayMs);
      const ok = state.ok * kept;
      const failed = state.failed * kept;
      return {
        latencyMs: state.latencyMs,
        freshness: state.latencyMs === undefined ? 0 : decay(state.latencyAt, at, latencyDecayMs),
        successRate: (ok + 1) / (ok + failed + 1),
        inFlight: state.inFlight,
      };
    },
  };
}
