import type { SwitchyardConfig } from '../config/switchyard-config.js';
import { type AccessPolicy, accessPolicyFromConfig } from '../http/access-policy.js';
import type { CallerKeySource } from '../http/caller-auth.js';
import { createStaticCallerKeys } from '../http/static-caller-keys.js';

/** What a reload did: applied, or refused with the reason (the old keys stay in force). */
export type AuthReloadOutcome =
  | { ok: true; keys: number; operatorKeys: number }
  | { ok: false; reason: string };

/**
 * The caller keys, operator keys and schedule readers of `switchyard serve`, swappable while it
 * runs (SIGHUP). The HTTP app reads them on every request, so a reload applies to the next one.
 */
export interface ReloadableAuth {
  readonly callerKeys: CallerKeySource;
  readonly access: () => AccessPolicy;
  /**
   * Puts the auth settings of a freshly parsed config in force. Refuses (and changes nothing) when
   * the new config has no `auth` block while one is in force: a reload may revoke or add keys but
   * never turns authentication off; that takes a restart.
   */
  apply(config: Pick<SwitchyardConfig, 'auth' | 'schedules'>): AuthReloadOutcome;
}

/** Starts with the settings of `config`. */
export function createReloadableAuth(config: Pick<SwitchyardConfig, 'auth' | 'schedules'>): ReloadableAuth {
  let current = {
    config,
    keys: createStaticCallerKeys(config.auth?.keys),
    access: accessPolicyFromConfig(config),
  };
  return {
    callerKeys: { hashes: () => current.keys.hashes() },
    access: () => current.access,
    apply(next) {
      if (current.config.auth !== undefined && next.auth === undefined) {
        return {
          ok: false,
          reason:
            'the new config has no auth section; a reload never turns caller authentication off (restart to do that)',
        };
      }
      current = {
        config: next,
        keys: createStaticCallerKeys(next.auth?.keys),
        access: accessPolicyFromConfig(next),
      };
      return {
        ok: true,
        keys: Object.keys(next.auth?.keys ?? {}).length,
        operatorKeys: next.auth?.operatorKeys.length ?? 0,
      };
    },
  };
}
