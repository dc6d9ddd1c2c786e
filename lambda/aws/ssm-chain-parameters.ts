import type { SSMProvider } from '@aws-lambda-powertools/parameters/ssm';
import type { ChainParameterStore } from '../core/catalog/chain-sources.js';

/** `<prefix>/chains`: the folder that holds one parameter per pipeline (see `chainParameterName`). */
export function chainsPath(ssmPrefix: string): string {
  return `${ssmPrefix.replace(/\/+$/, '')}/chains`;
}

/**
 * Chains from SSM through Powertools Parameters. One `GetParametersByPath` under `<prefix>/chains`
 * serves every pipeline and is cached for `cacheMs`, so an edit takes effect within that time and
 * a pipeline without a parameter costs no call of its own. A failed read throws; the chain
 * resolver logs it and falls through to the config chain.
 */
export function createSsmChainParameters(
  provider: SSMProvider,
  options: { ssmPrefix: string; cacheMs: number },
): ChainParameterStore {
  const path = chainsPath(options.ssmPrefix);
  const maxAge = options.cacheMs / 1000;
  return {
    async get(pipeline) {
      const chains = await provider.getMultiple(path, {
        maxAge,
        recursive: false,
        throwOnTransformError: false,
      });
      const value = chains?.[pipeline];
      return typeof value === 'string' ? value : undefined;
    },
  };
}
