import { GetParametersByPathCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { SwitchyardError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { Clock, Random, Sleep } from '../core/time.js';
import { retryWithinBudget } from './jittered-retry.js';

/** Every parameter under the prefix as one successful read saw it. */
export interface ParameterSnapshot {
  /** Full parameter name (`/switchyard/chains/p`) → value, SecureStrings decrypted. */
  readonly values: ReadonlyMap<string, string>;
  /** When the read that produced it succeeded, in ms since the epoch. */
  readonly readAt: number;
}

/** No snapshot has ever been read: SSM failed (or timed out) on every try so far. */
export class ParameterSnapshotUnavailableError extends SwitchyardError {
  /** When the next read may happen, in ms since the epoch. */
  readonly nextReadAt: number;
  constructor(prefix: string, nextReadAt: number, options?: ErrorOptions) {
    super(`the SSM parameters under ${prefix} have not been read yet`, options);
    this.name = 'ParameterSnapshotUnavailableError';
    this.nextReadAt = nextReadAt;
  }
}

/**
 * One container's view of every parameter under `<prefix>`: chain overrides, caller keys and the
 * provider keys stored there, all from ONE recursive `GetParametersByPath` (10 per page) per cache
 * period, so SSM load grows with containers × pages / period and not with requests or parameters.
 */
export interface ParameterSource {
  readonly prefix: string;
  /** The longest a snapshot is trusted before the next read, in ms (`cacheMs` plus the jitter). */
  readonly maxLifetimeMs: number;
  /**
   * The snapshot, read again first when its jittered lifetime has passed; concurrent callers share
   * one read. While SSM fails the last good snapshot serves. Throws
   * `ParameterSnapshotUnavailableError` when no read has ever succeeded.
   */
  read(): Promise<ParameterSnapshot>;
  /** The last good snapshot without any I/O; undefined before the first success. */
  latest(): ParameterSnapshot | undefined;
  /** Starts a read in the background when one is due. Never throws. */
  kick(): void;
  /** When the next read may happen (lifetime or failure backoff), in ms since the epoch. */
  nextReadAt(): number;
}

/** Settings of `createParameterSource`; times in ms. */
export interface ParameterSourceOptions {
  client: SSMClient;
  /** The SSM path, e.g. `/switchyard` (a trailing `/` is ignored). */
  prefix: string;
  /** How long a snapshot is trusted, in ms: config `aws.chainCacheMs`. */
  cacheMs: number;
  /** Each lifetime is `cacheMs × (1 ± jitter)`, so containers do not refresh in step. Default 0.2. */
  jitter?: number | undefined;
  /** First pause after a failed read, in ms, doubling per failure up to `cacheMs` (min 1 s). Default 1000. */
  retryMs?: number | undefined;
  /**
   * Bound on one whole read (every page, and the retries of a throttled or failed read with
   * jittered backoff), in ms: config `aws.keyReadBudgetMs`. Default 3000.
   */
  readTimeoutMs?: number | undefined;
  log: Logger;
  clock: Clock;
  random: Random;
  /**
   * Pauses between the retries of a failed read (full jitter from `random`, within
   * `readTimeoutMs`). Without it a read is tried once: the Lambda always passes it.
   */
  sleep?: Sleep | undefined;
  /** Hears each failed read (after its log line): the `SsmSnapshotFailures` metric in Lambda. */
  onReadFailure?: ((error: unknown) => void) | undefined;
}

/**
 * Tries per snapshot read (the first included). Two, not the key reads' four: every container of a
 * spike reads the same throttled prefix, and more tries only add to the account-wide throttling
 * (measured: `npm run bench:ssm-load -- --spike`); the failure backoff below spaces the next reads.
 */
const SNAPSHOT_TRIES = 2;

/** At most this many pages (10 parameters each) per read: a runaway prefix must not stall a container. */
const MAX_PAGES = 50;

/** `base × (1 ± jitter)`, uniformly. */
export function jittered(base: number, jitter: number, random: Random): number {
  return Math.round(base * (1 + jitter * (2 * random() - 1)));
}

/** Reads every parameter under the prefix, decrypted, page by page, within one abort signal. */
async function readAll(client: SSMClient, prefix: string, signal: AbortSignal): Promise<Map<string, string>> {
  const values = new Map<string, string>();
  let token: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const out = await client.send(
      new GetParametersByPathCommand({
        Path: prefix,
        Recursive: true,
        WithDecryption: true,
        MaxResults: 10,
        NextToken: token,
      }),
      { abortSignal: signal },
    );
    for (const p of out.Parameters ?? []) {
      if (p.Name !== undefined && p.Value !== undefined) values.set(p.Name, p.Value);
    }
    token = out.NextToken;
    if (!token) return values;
  }
  throw new SwitchyardError(`more than ${MAX_PAGES * 10} parameters under ${prefix}`);
}

/** The container's parameter snapshot over the AWS SDK (see `ParameterSource`). */
export function createParameterSource(options: ParameterSourceOptions): ParameterSource {
  const { client, log, clock, random } = options;
  const prefix = options.prefix.replace(/\/+$/, '');
  const { cacheMs } = options;
  const jitter = options.jitter ?? 0.2;
  const retryMs = options.retryMs ?? 1_000;
  const maxBackoff = Math.max(cacheMs, 1_000);
  const readTimeoutMs = options.readTimeoutMs ?? 3_000;
  const { sleep } = options;
  let good: ParameterSnapshot | undefined;
  let nextReadAt = 0;
  let failures = 0;
  let inflight: Promise<void> | undefined;

  const refresh = async (): Promise<void> => {
    try {
      const deadlineAt = clock.now() + readTimeoutMs;
      const once = (remainingMs: number) => readAll(client, prefix, AbortSignal.timeout(remainingMs));
      const values = sleep
        ? await retryWithinBudget(once, { clock, random, sleep, deadlineAt, maxTries: SNAPSHOT_TRIES })
        : await once(readTimeoutMs);
      good = { values, readAt: clock.now() };
      failures = 0;
      nextReadAt = clock.now() + jittered(cacheMs, jitter, random);
    } catch (error) {
      const pause = Math.min(retryMs * 2 ** failures, maxBackoff);
      failures += 1;
      nextReadAt = clock.now() + jittered(pause, jitter, random);
      log.warn(
        good
          ? 'SSM parameters unreadable; serving the last good snapshot'
          : 'SSM parameters unreadable; none read yet',
        {
          prefix,
          error: error instanceof Error ? error.name : 'unknown',
          ageMs: good ? clock.now() - good.readAt : undefined,
          retryInMs: nextReadAt - clock.now(),
        },
      );
      options.onReadFailure?.(error);
    }
  };

  const start = (): Promise<void> => {
    inflight ??= refresh().finally(() => {
      inflight = undefined;
    });
    return inflight;
  };

  return {
    prefix,
    maxLifetimeMs: Math.ceil(cacheMs * (1 + jitter)),
    async read() {
      if (clock.now() >= nextReadAt || inflight) await start();
      if (!good) throw new ParameterSnapshotUnavailableError(prefix, nextReadAt);
      return good;
    },
    latest: () => good,
    kick() {
      if (clock.now() >= nextReadAt) void start();
    },
    nextReadAt: () => nextReadAt,
  };
}
