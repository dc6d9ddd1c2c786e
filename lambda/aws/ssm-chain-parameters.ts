import type { ChainParameterStore } from '../core/catalog/chain-sources.js';
import { SwitchyardError } from '../core/errors.js';
import type { Sleep } from '../core/time.js';
import type { ParameterSource } from './parameter-snapshot.js';
import { chainOverridesPath } from './ssm-chains.js';

/** How long a request waits for a container's FIRST snapshot before it uses the config chain. */
export interface FirstReadWait {
  /** In ms. The read goes on in the background; later requests use it once it lands. */
  ms: number;
  sleep: Sleep;
}

/**
 * Chain overrides (`<prefix>/chains/<pipeline>`) from the container's parameter snapshot: no SSM
 * call of their own, and an edit takes effect within the snapshot's lifetime (`aws.chainCacheMs`
 * ± jitter). While SSM fails the last good snapshot keeps serving — an operator's incident reroute
 * must not quietly revert to the config chain because SSM is slow. Before any snapshot was read
 * `get` throws; the chain resolver logs it and uses the config. With `firstReadWait`, a request of
 * a new container waits at most that long for the first read (which SSM throttling can stretch to
 * the whole retry budget) before it does so.
 */
export function createSsmChainParameters(
  source: ParameterSource,
  firstReadWait?: FirstReadWait,
): ChainParameterStore {
  const folder = chainOverridesPath(source.prefix);
  const read = async () => {
    if (!firstReadWait || source.latest() !== undefined) return source.read();
    const timer = new AbortController();
    const reading = source.read();
    try {
      const waited = firstReadWait.sleep(firstReadWait.ms, timer.signal).then(() => undefined);
      const snapshot = await Promise.race([reading, waited]);
      if (snapshot === undefined) {
        reading.catch(() => undefined);
        throw new SwitchyardError(`no SSM snapshot of ${source.prefix} within ${firstReadWait.ms} ms`);
      }
      return snapshot;
    } finally {
      timer.abort();
    }
  };
  return {
    async get(pipeline) {
      return (await read()).values.get(`${folder}/${pipeline}`);
    },
  };
}
