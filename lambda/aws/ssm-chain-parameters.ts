import type { ChainParameterStore } from '../core/catalog/chain-sources.js';
import type { ParameterSource } from './parameter-snapshot.js';
import { chainOverridesPath } from './ssm-chains.js';

/**
 * Chain overrides (`<prefix>/chains/<pipeline>`) from the container's parameter snapshot: no SSM
 * call of their own, and an edit takes effect within the snapshot's lifetime (`aws.chainCacheMs`
 * ± jitter). While SSM fails the last good snapshot keeps serving — an operator's incident reroute
 * must not quietly revert to the config chain because SSM is slow. Before any snapshot was read
 * `get` throws; the chain resolver logs it and uses the config.
 */
export function createSsmChainParameters(source: ParameterSource): ChainParameterStore {
  const folder = chainOverridesPath(source.prefix);
  return {
    async get(pipeline) {
      return (await source.read()).values.get(`${folder}/${pipeline}`);
    },
  };
}
