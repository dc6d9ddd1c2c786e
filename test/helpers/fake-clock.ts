import type { Clock, Sleep } from '../../lambda/core/time.js';

interface Sleeper {
  due: number;
  resolve: () => void;
}

/** A clock that only moves when a test moves it, with a `sleep` that wakes on `advance`. */
export interface FakeClock extends Clock {
  sleep: Sleep;
  /** Moves time forward and wakes every sleeper that is due. */
  advance(ms: number): void;
  set(ms: number): void;
  /** Sleepers still waiting. */
  pending(): number;
  /** When the earliest sleeper is due, in ms since the epoch; undefined when none waits. */
  nextDue(): number | undefined;
}

export function createFakeClock(start = 1_700_000_000_000): FakeClock {
  let now = start;
  const sleepers = new Set<Sleeper>();
  const wake = () => {
    for (const s of [...sleepers]) {
      if (s.due <= now) {
        sleepers.delete(s);
        s.resolve();
      }
    }
  };
  return {
    now: () => now,
    sleep(ms, signal) {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const sleeper: Sleeper = { due: now + ms, resolve };
        sleepers.add(sleeper);
        signal?.addEventListener(
          'abort',
          () => {
            sleepers.delete(sleeper);
            reject(signal.reason);
          },
          { once: true },
        );
      });
    },
    advance(ms) {
      now += ms;
      wake();
    },
    set(ms) {
      now = ms;
      wake();
    },
    pending: () => sleepers.size,
    nextDue: () => (sleepers.size === 0 ? undefined : Math.min(...[...sleepers].map((s) => s.due))),
  };
}
