/**
 * When each demo request is sent: steady arrivals on the main pipeline at each phase's rate, and
 * the cron burst, where every cron pipeline fires its batch at one instant within the same second.
 */
import type { Random } from '../../core/time.js';
import type { DemoScenario } from './demo-scenario.js';

/** One request to send. */
export interface Arrival {
  /** Ms after the run started. */
  atMs: number;
  pipeline: string;
}

/** Every arrival of the run, oldest first. Evenly spaced within a phase, so rates are exact. */
export function planArrivals(scenario: DemoScenario, random: Random): Arrival[] {
  const arrivals: Arrival[] = [];
  for (const phase of scenario.phases) {
    if (phase.ratePerSecond <= 0) continue;
    const spacing = 1000 / phase.ratePerSecond;
    for (let t = phase.startMs; t < phase.endMs; t += spacing) {
      arrivals.push({ atMs: Math.round(t), pipeline: scenario.mainPipeline });
    }
  }
  const { cron } = scenario;
  for (const pipeline of cron.pipelines) {
    const wake = cron.atMs + Math.floor(random() * cron.spreadMs);
    for (let i = 0; i < cron.requestsEach; i++) arrivals.push({ atMs: wake, pipeline });
  }
  return arrivals.sort((a, b) => a.atMs - b.atMs);
}

/** How often the schedule looks for due arrivals, in ms. Fine enough for 120 req/s. */
const TICK_MS = 10;

/** Arrivals overdue by more than this many ms are skipped, not sent in one lump. */
export const MAX_LATE_MS = 500;

/**
 * Sends each arrival when it is due, until the last one or until `signal` aborts. A late tick
 * sends what came due since the last one. After a long stall of this process (a starved machine)
 * the overdue arrivals are skipped and reported through `onLate` instead: sent in one lump they
 * would hit the upstreams' quotas all at once, a spike of the simulator's making, not the story's.
 */
export function runArrivals(
  arrivals: readonly Arrival[],
  send: (pipeline: string) => void,
  options: { startedAt: number; signal?: AbortSignal | undefined; onLate?: (() => void) | undefined },
): Promise<void> {
  return new Promise((resolve) => {
    let next = 0;
    let timer: NodeJS.Timeout | undefined;
    const stop = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', stop);
      resolve();
    };
    const tick = () => {
      const now = Date.now() - options.startedAt;
      while (next < arrivals.length && (arrivals[next]?.atMs ?? 0) <= now) {
        const arrival = arrivals[next] as Arrival;
        if (arrival.atMs < now - MAX_LATE_MS) options.onLate?.();
        else send(arrival.pipeline);
        next++;
      }
      if (next >= arrivals.length) stop();
      else timer = setTimeout(tick, TICK_MS);
    };
    if (options.signal?.aborted) return resolve();
    options.signal?.addEventListener('abort', stop, { once: true });
    tick();
  });
}
