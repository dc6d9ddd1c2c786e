/**
 * A virtual clock with its own event loop, so that an hour of traffic replays in seconds while
 * the real router (which takes its `Clock` and `Sleep` as parameters) runs unchanged.
 *
 * Time stands still while JavaScript runs. `run()` takes the earliest timers, moves the clock to
 * their due time, fires them, then yields one macrotask so that every promise chain they set off
 * settles before time moves on. Nothing in the simulation waits on real I/O, so one yield is
 * enough to reach the next point where every request waits on a virtual timer.
 */
import type { Clock, Sleep } from '../../lambda/core/time.js';

interface Timer {
  due: number;
  seq: number;
  fire: () => void;
  cancelled: boolean;
}

/** A binary min-heap of timers ordered by due time, then by scheduling order. */
class TimerHeap {
  private readonly items: Timer[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): Timer | undefined {
    return this.items[0];
  }

  push(timer: Timer): void {
    const items = this.items;
    items.push(timer);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(timer, items[parent] as Timer)) break;
      items[i] = items[parent] as Timer;
      i = parent;
    }
    items[i] = timer;
  }

  pop(): Timer | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const child =
        right < items.length && before(items[right] as Timer, items[left] as Timer) ? right : left;
      if (!before(items[child] as Timer, last)) break;
      items[i] = items[child] as Timer;
      i = child;
    }
    items[i] = last;
    return top;
  }
}

const before = (a: Timer, b: Timer) => a.due < b.due || (a.due === b.due && a.seq < b.seq);

const yieldMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The virtual clock and its event loop. */
export class VirtualTime implements Clock {
  private current: number;
  private seq = 0;
  private readonly timers = new TimerHeap();

  /** @param start Virtual epoch ms at which the simulation begins. */
  constructor(start: number) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  /** Runs `fire` at virtual time `at` (ms since epoch); at once-ish if `at` is in the past. */
  at(at: number, fire: () => void): void {
    this.timers.push({ due: Math.max(at, this.current), seq: this.seq++, fire, cancelled: false });
  }

  /** The `Sleep` the router and the simulated providers use: rejects with the signal's reason on abort. */
  readonly sleep: Sleep = (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer: Timer = {
        due: this.current + Math.max(0, ms),
        seq: this.seq++,
        fire: resolve,
        cancelled: false,
      };
      if (signal) {
        const onAbort = () => {
          timer.cancelled = true;
          reject(signal.reason);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        timer.fire = () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
      }
      this.timers.push(timer);
    });

  /**
   * Fires timers in time order until none is left or `until` (virtual ms) is passed. Stops by
   * itself: every timer fires once, and a simulation schedules finitely many.
   */
  async run(until = Number.POSITIVE_INFINITY): Promise<void> {
    for (;;) {
      // Cancelled timers (attempt timeouts of calls that answered) are dropped without a yield.
      let next = this.timers.peek();
      while (next?.cancelled) {
        this.timers.pop();
        next = this.timers.peek();
      }
      if (next === undefined || next.due > until) return;
      this.current = next.due;
      // Everything due at this instant fires before the single yield.
      while (this.timers.size > 0 && (this.timers.peek() as Timer).due === this.current) {
        const timer = this.timers.pop() as Timer;
        if (!timer.cancelled) timer.fire();
      }
      await yieldMacrotask();
    }
  }
}
