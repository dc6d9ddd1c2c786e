import type { SwitchyardConfig } from '../lambda/config/switchyard-config.js';
import type { GlobalBreakerTable } from './constructs/breaker-table.js';

/** What one regional stack of a multi-region deployment needs to know of the others. */
export interface RegionPlacement {
  /** This stack's region. */
  region: string;
  /** The first of `aws.regions`: it owns the global breaker table, when there is one. */
  primary: string;
  /** With `aws.breakerState: "global"`: this stack's part of the global breaker table. */
  breakerTable?: GlobalBreakerTable | undefined;
}

/**
 * The placement of each region of `aws.regions`, in order (docs/design.md#more-than-one-region).
 * `stackName` names the global table (`<stack name>-breakers`), the same in every region.
 */
export function regionPlacements(config: SwitchyardConfig, stackName: string): RegionPlacement[] {
  const regions = config.aws.regions ?? [];
  const [primary] = regions;
  if (primary === undefined) return [];
  const tableName = `${stackName}-breakers`;
  return regions.map((region) => ({
    region,
    primary,
    breakerTable:
      config.aws.breakerState !== 'global'
        ? undefined
        : region === primary
          ? { role: 'owner', tableName, replicaRegions: regions.slice(1) }
          : { role: 'replica', tableName },
  }));
}
