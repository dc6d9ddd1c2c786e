import type { CallerKeySource } from './caller-auth.js';

/**
 * Caller keys from the config file's `auth.keys` (name → SHA-256 hex). With no `auth` block, or
 * an empty `keys`, authentication is off: the local gateway on a laptop needs no key.
 */
export function createStaticCallerKeys(keys: Readonly<Record<string, string>> | undefined): CallerKeySource {
  const entries = Object.entries(keys ?? {});
  const hashes: ReadonlyMap<string, string> | undefined =
    entries.length === 0 ? undefined : new Map(entries.map(([name, hash]) => [name, hash.toLowerCase()]));
  return { hashes: async () => hashes };
}
