import type { Tier } from '../dsl/types.js';

/**
 * Context-window fit (docs/concepts.md#context-windows): which models a request may go to given
 * their declared `contextWindow`. Pure; a model that declares no window is never ruled out.
 */

/** What rules a model out for size in one request. */
export interface WindowBounds {
  /**
   * The request's estimated size in tokens: its prompt (a floor: `estimatePromptTokens`) plus
   * the output it asks for, when it says. Undefined: no estimate, nothing ruled out before a call.
   */
  demand?: number | undefined;
  /**
   * After a `context_length` failure: the window of the model that refused, so only a larger one
   * may be tried. Undefined: none refused (or the one that did declared no window).
   */
  floor?: number | undefined;
}

/**
 * True when a model of context window `window` (tokens) may take the request: the estimate fits
 * (`demand <= window`) and the window is larger than any that already refused (`window > floor`).
 * A model without a declared window always may.
 */
export function windowAllows(window: number | undefined, bounds: WindowBounds): boolean {
  if (window === undefined) return true;
  if (bounds.demand !== undefined && bounds.demand > window) return false;
  return bounds.floor === undefined || window > bounds.floor;
}

/** The floor after a model of window `window` refused the request: the larger of the two (undefined stays as it was). */
export function raiseFloor(floor: number | undefined, window: number | undefined): number | undefined {
  if (window === undefined) return floor;
  return floor === undefined ? window : Math.max(floor, window);
}

/**
 * The models of `allowed` that can be called here but whose every route is too small for the
 * request: `upTo(tier)` gives those in the tiers up to `tier` (1-based) not given before, so each
 * enters the trail once, when the selection first passes it.
 */
export function contextSkips(
  allowed: readonly Tier[],
  routesOf: (model: string) => readonly string[],
  configured: (route: string) => boolean,
  fits: (route: string) => boolean,
) {
  const reported = new Set<string>();
  const isTooSmall = (key: string) => {
    const routes = routesOf(key).filter(configured);
    return routes.length > 0 && !routes.some(fits);
  };
  return {
    upTo(tier: number): string[] {
      const out: string[] = [];
      for (const t of allowed.slice(0, tier)) {
        for (const { key } of t.members) {
          if (reported.has(key) || !isTooSmall(key)) continue;
          reported.add(key);
          out.push(key);
        }
      }
      return out;
    },
    /** True when any allowed model is too small now. */
    any: () => allowed.some((t) => t.members.some((m) => isTooSmall(m.key))),
    /** The model already shows in the trail (it refused the request itself): never listed as skipped. */
    seen: (key: string) => reported.add(key),
  };
}
