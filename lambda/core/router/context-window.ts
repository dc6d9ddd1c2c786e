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
