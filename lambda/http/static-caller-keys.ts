import type { CallerKeySource } from './caller-auth.js';

/**
 * Caller keys from the config file's `auth.keys` (name → SHA-256 hex). With no `auth` block
 * authentication is off: the local gateway on a laptop needs no key. An `auth` block whose `keys`
 * is empty refuses every caller, as the AWS deployment does: deleting the last key to revoke it
 * closes the gateway, it never opens it.
 */
export function createStaticCallerKeys(keys: Readonly<Record<string, string>> | undefined): CallerKeySource {
  const hashes: ReadonlyMap<string, string> | undefined =
    keys === undefined
      ? undefined
      : new Map(Object.entries(keys).map(([name, hash]) => [name, hash.toLowerCase()]));
  return { hashes: async () => hashes };
}
