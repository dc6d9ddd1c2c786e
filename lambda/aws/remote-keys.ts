import type { Logger } from '../core/logger.js';
import type { Clock } from '../core/time.js';

/** How keys outside the prefix are fetched; both resolve a value or undefined (does not exist). */
export interface RemoteKeyReaders {
  /** One `GetParameters` (decrypted) for at most 10 SSM names: name → value for those that exist. */
  ssmBatch(names: readonly string[]): Promise<ReadonlyMap<string, string>>;
  /** One Secrets Manager `GetSecretValue`; undefined when the secret does not exist. */
  secret(name: string): Promise<string | undefined>;
}

/** True when `apiKeySecret` names an SSM parameter rather than a Secrets Manager secret. */
export const isSsmName = (name: string) => name.startsWith('/');

/** `GetParameters` accepts at most this many names per call. */
export const SSM_BATCH_SIZE = 10;

interface Entry {
  value: string | undefined;
  dueAt: number;
  failures: number;
}

/** Settings of `createRemoteKeys`: the names to keep, how to read them, and the timing rules. */
export interface RemoteKeysOptions {
  names: readonly string[];
  readers: RemoteKeyReaders;
  clock: Clock;
  log: Logger;
  /** A fresh (jittered) lifetime for a key that was read, in ms. */
  lifetimeMs: () => number;
  /** The pause before re-reading a missing or unreadable key after `failures` earlier misses, in ms. */
  backoffMs: (failures: number) => number;
}

/** Provider keys stored outside the container's prefix, each with its own due time. */
export interface RemoteKeys {
  /** The value held now (undefined when missing or never read). */
  get(name: string): string | undefined;
  /** Reads every key that is due (SSM names batched, secrets one by one). Shared while in flight. Never throws. */
  refresh(): Promise<void>;
  /** `refresh()` in the background when any key is due. */
  kick(): void;
}

const chunks = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, i * size + size));

/**
 * The cache behind keys named outside the prefix. SSM names are read in fixed batches of up to 10
 * (a batch is read whole when any name in it is due); a key that was read is kept for a jittered
 * lifetime shared by its batch; a missing one (or one whose read failed) is retried after
 * `backoffMs(failures)`. A failed read keeps the value held before (a throttled SSM must not unset
 * a working key); a key that SSM says no longer exists is dropped.
 */
export function createRemoteKeys(options: RemoteKeysOptions): RemoteKeys {
  const { readers, clock, log } = options;
  const entries = new Map<string, Entry>(
    options.names.map((n) => [n, { value: undefined, dueAt: 0, failures: 0 }]),
  );
  let inflight: Promise<void> | undefined;

  /** `lifetime` is shared by a batch, so its keys stay due together and cost one call per lifetime. */
  const settle = (name: string, value: string | undefined, failed: boolean, lifetime: number) => {
    const entry = entries.get(name) as Entry;
    if (!failed) entry.value = value?.trim() || undefined;
    if (entry.value !== undefined && !failed) {
      entry.failures = 0;
      entry.dueAt = clock.now() + lifetime;
    } else {
      entry.dueAt = clock.now() + options.backoffMs(entry.failures);
      entry.failures += 1;
    }
  };
  const failed = (names: readonly string[], error: unknown) => {
    log.error('cannot read provider keys; retrying with backoff', {
      names: names.join(','),
      error: error instanceof Error ? error.name : 'unknown',
    });
    for (const name of names) settle(name, undefined, true, 0);
  };

  const due = () => [...entries].filter(([, e]) => clock.now() >= e.dueAt).map(([n]) => n);

  const ssmBatches = chunks(options.names.filter(isSsmName), SSM_BATCH_SIZE);

  // A batch is read whole when any of its names is due: the call costs the same for 1 name or 10.
  const run = async () => {
    const dueNames = new Set(due());
    await Promise.all([
      ...ssmBatches
        .filter((batch) => batch.some((n) => dueNames.has(n)))
        .map(async (batch) => {
          try {
            const values = await readers.ssmBatch(batch);
            const lifetime = options.lifetimeMs();
            for (const name of batch) settle(name, values.get(name), false, lifetime);
          } catch (error) {
            failed(batch, error);
          }
        }),
      ...[...dueNames]
        .filter((n) => !isSsmName(n))
        .map(async (name) => {
          try {
            settle(name, await readers.secret(name), false, options.lifetimeMs());
          } catch (error) {
            failed([name], error);
          }
        }),
    ]);
  };

  const refresh = () => {
    inflight ??= run().finally(() => {
      inflight = undefined;
    });
    return inflight;
  };

  return {
    get: (name) => entries.get(name)?.value,
    refresh,
    kick() {
      if (!inflight && due().length > 0) void refresh();
    },
  };
}
