import type { SwitchyardConfig } from '../config/switchyard-config.js';
import type { Logger } from '../core/logger.js';
import type { Clock, Random } from '../core/time.js';
import { isKeyedProvider } from '../families/capabilities.js';
import type { ProviderAccess } from '../families/create-route-models.js';
import { jittered, type ParameterSource } from './parameter-snapshot.js';
import { createRemoteKeys, type RemoteKeyReaders } from './remote-keys.js';

/** True when `apiKeySecret` names an SSM parameter (`/…`) rather than a Secrets Manager secret. */
export { isSsmName } from './remote-keys.js';

/** Settings of `createAwsProviderKeys`; times in ms. */
export interface AwsProviderKeysOptions {
  /** The providers, and `aws.providerKeyCacheMs`: the lifetime of a key read from outside the prefix, in ms. */
  config: SwitchyardConfig;
  /** The container's parameter snapshot: keys named under its prefix are read from it. */
  source: ParameterSource;
  /** Reads keys named outside the prefix (SSM in batches of 10, Secrets Manager one by one). */
  readers: RemoteKeyReaders;
  log: Logger;
  clock: Clock;
  random: Random;
  /** First re-read of a missing or unreadable key, in ms, doubling up to `maxBackoffMs`. Default 1000. */
  backoffMs?: number | undefined;
  /** Longest pause between re-reads of a missing key, in ms. Default 60000. */
  maxBackoffMs?: number | undefined;
}

/** The AWS provider keys: `ProviderAccess` plus the first load, which the gateway awaits at start. */
export interface AwsProviderKeys extends ProviderAccess {
  /**
   * Reads every key once: the keys outside the prefix, and the snapshot when a key lives under the
   * prefix (else the snapshot is only started, so a throttled SSM does not hold up a container
   * whose keys are elsewhere). Never throws.
   */
  load(): Promise<void>;
}

/**
 * Provider keys that follow SSM without a deploy. `apiKey(name)` is synchronous and answers from
 * what is held now: a key under the prefix comes from the container's parameter snapshot (so it is
 * as fresh as a chain override), any other from its own cache, refreshed on a jittered
 * `aws.providerKeyCacheMs`; a missing or unreadable key is re-read with backoff (`backoffMs` doubling to
 * `maxBackoffMs`). Each call may start that re-read in the background. A key that is missing
 * answers undefined: the attempt fails as `not_configured`, falls back, and never reaches the
 * shared breaker.
 */
export function createAwsProviderKeys(options: AwsProviderKeysOptions): AwsProviderKeys {
  const { config, source, log, clock, random } = options;
  const underPrefix = (name: string) => name.startsWith(`${source.prefix}/`);
  const secretOf = (provider: string): string | undefined => {
    const p = config.providers[provider];
    return isKeyedProvider(p) ? p.apiKeySecret : undefined;
  };
  const remoteNames = Object.values(config.providers).flatMap((p) =>
    isKeyedProvider(p) && p.apiKeySecret !== undefined && !underPrefix(p.apiKeySecret)
      ? [p.apiKeySecret]
      : [],
  );
  const remote = createRemoteKeys({
    names: [...new Set(remoteNames)],
    readers: options.readers,
    clock,
    log,
    lifetimeMs: () => jittered(config.aws.providerKeyCacheMs, 0.2, random),
    backoffMs: (failures) =>
      jittered(
        Math.min((options.backoffMs ?? 1_000) * 2 ** failures, options.maxBackoffMs ?? 60_000),
        0.2,
        random,
      ),
  });
  // Transitions only, so a missing key is one log line and not one per request.
  const missing = new Set<string>();
  const note = (provider: string, secret: string, value: string | undefined) => {
    if (value === undefined && !missing.has(provider)) {
      missing.add(provider);
      log.error('provider key missing; its models are skipped as not_configured', { provider, secret });
    } else if (value !== undefined && missing.delete(provider)) {
      log.info('provider key loaded', { provider, secret });
    }
  };

  return {
    async load() {
      const needsSnapshot = Object.values(config.providers).some(
        (p) => isKeyedProvider(p) && p.apiKeySecret !== undefined && underPrefix(p.apiKeySecret),
      );
      if (!needsSnapshot) source.kick();
      await Promise.all([needsSnapshot ? source.read().catch(() => undefined) : undefined, remote.refresh()]);
    },
    apiKey(name) {
      const provider = config.providers[name];
      if (!isKeyedProvider(provider)) return undefined;
      const secret = secretOf(name);
      // A keyless OpenAI-compatible server gets a placeholder; a vertex provider always needs its key.
      if (secret === undefined)
        return provider.type === 'openai' && provider.apiKeyEnv === undefined ? 'not-needed' : undefined;
      let value: string | undefined;
      if (underPrefix(secret)) {
        source.kick();
        value = source.latest()?.values.get(secret)?.trim() || undefined;
      } else {
        remote.kick();
        value = remote.get(secret);
      }
      note(name, secret, value);
      return value;
    },
    keyHint(name) {
      return secretOf(name) ?? `providers.${name}.apiKeySecret`;
    },
  };
}
