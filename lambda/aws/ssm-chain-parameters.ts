import type { SSMProvider } from '@aws-lambda-powertools/parameters/ssm';
import type { ChainParameterStore } from '../core/catalog/chain-sources.js';
import type { Logger } from '../core/logger.js';

/** `<prefix>/chains`: the folder that holds one parameter per pipeline (see `chainParameterName`). */
export function chainsPath(ssmPrefix: string): string {
  return `${ssmPrefix.replace(/\/+$/, '')}/chains`;
}

/** After a failed read, how long the last good chains serve before SSM is asked again, in ms. */
export const SSM_RETRY_AFTER_FAILURE_MS = 5_000;

export interface SsmChainParametersOptions {
  ssmPrefix: string;
  /** How long chains read from SSM are trusted, in ms (`aws.chainCacheMs`). */
  cacheMs: number;
  log: Logger;
  now?: () => number;
}

/**
 * Chains from SSM through Powertools Parameters. One `GetParametersByPath` under `<prefix>/chains`
 * serves every pipeline and is cached for `cacheMs`, so an edit takes effect within that time and
 * a pipeline without a parameter costs no call of its own. When SSM fails (throttling, an
 * outage), the last chains it gave keep serving — an operator's incident reroute must not quietly
 * revert to the config chain because SSM is slow — and SSM is asked again after a short pause. A
 * read that fails before any succeeded throws; the chain resolver logs it and uses the config.
 */
export function createSsmChainParameters(
  provider: SSMProvider,
  options: SsmChainParametersOptions,
): ChainParameterStore {
  const path = chainsPath(options.ssmPrefix);
  const maxAge = options.cacheMs / 1000;
  const now = options.now ?? Date.now;
  let lastGood: Record<string, unknown> | undefined;
  let pausedUntil = 0;

  const chains = async (): Promise<Record<string, unknown>> => {
    if (lastGood && now() < pausedUntil) return lastGood;
    try {
      lastGood =
        (await provider.getMultiple(path, { maxAge, recursive: false, throwOnTransformError: false })) ?? {};
      return lastGood;
    } catch (error) {
      if (!lastGood) throw error;
      if (now() >= pausedUntil) {
        options.log.warn('SSM chains unreadable; serving the last chains it gave', {
          path,
          error: error instanceof Error ? error.name : 'unknown',
        });
      }
      pausedUntil = now() + SSM_RETRY_AFTER_FAILURE_MS;
      return lastGood;
    }
  };

  return {
    async get(pipeline) {
      const value = (await chains())[pipeline];
      return typeof value === 'string' ? value : undefined;
    },
  };
}
