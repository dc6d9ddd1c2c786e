import { deriveTimeouts } from '../../lambda/core/catalog/derive-timeouts.js';
import type { AttemptTimeouts } from '../../lambda/core/router/route-types.js';

/** A route's limits when its config sets only `timeoutMs: ms`, through the catalog's own derivation. */
export function uniformTimeouts(ms: number): AttemptTimeouts {
  return deriveTimeouts('test', { timeoutMs: ms });
}
