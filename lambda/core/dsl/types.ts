/** One member of a tier: a resolved model key and its relative weight (default 1). */
export interface TierMember {
  key: string;
  weight: number;
}

/** A priority tier: one bare name, or a load-balanced group `(A|B*3)`. */
export interface Tier {
  members: TierMember[];
}

/**
 * A problem found in a chain. The parser never throws; it reports and recovers.
 * `position` is the 0-based character offset in the chain string where the problem starts.
 */
export interface DslWarning {
  message: string;
  position: number;
}

/** The result of parsing and resolving a chain. `tiers` is empty when nothing resolved. */
export interface ParsedChain {
  tiers: Tier[];
  warnings: DslWarning[];
}

/** How a name in a chain maps onto the catalog (model key, alias, or a provider's raw model id). */
export type NameResolution =
  | { kind: 'model'; key: string }
  | { kind: 'unknown' }
  | { kind: 'ambiguous'; candidates: string[] };

/** Looks names up in the catalog; implemented by the catalog, faked in DSL tests. */
export interface NameResolver {
  resolve(name: string): NameResolution;
}
