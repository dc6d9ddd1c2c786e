/** Whether a route can carry what a request needs (docs/concepts.md#capabilities). */
import type { Capabilities, Capability } from './capability.js';

/**
 * The needs `carries` lacks, in the order of `needs`; empty when the route can carry them all.
 * A route that declares no capabilities (undefined) carries everything.
 */
export function missingCapabilities(
  needs: readonly Capability[],
  carries: Capabilities | undefined,
): Capability[] {
  return carries === undefined ? [] : needs.filter((need) => !carries[need]);
}

/** The trail label of a route skipped for lacking `missing`: `unsupported(images+tools)` (`,` separates trail entries). */
export function unsupportedLabel(missing: readonly Capability[]): string {
  return `unsupported(${missing.join('+')})`;
}
