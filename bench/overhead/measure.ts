/**
 * The two regimes of the overhead bench: one request at a time (a keep-alive `node:http` client,
 * timed with `process.hrtime.bigint()`), and many connections at once (autocannon).
 */

import { Agent, request } from 'node:http';
import { createRequire } from 'node:module';
import type { Target } from './targets.js';

/** One answer, timed: first byte and whole answer in ms, and the server-sent events it held. */
export interface Sample {
  ms: number;
  ttfbMs: number;
  events: number;
}

/** The answers of one target, in the order they were measured. */
export type Samples = Sample[];

/** `data:` lines in a piece of an event stream (0 for JSON answers). */
function countEvents(text: string): number {
  let n = 0;
  for (let at = text.indexOf('data:'); at !== -1; at = text.indexOf('data:', at + 5)) n++;
  return n;
}

/** The `q` quantile (0–1) of `values`, nearest rank; NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Sends one request over `agent`, reads the whole answer, and times it. */
function timeOne(target: Target, agent: Agent, body: Buffer): Promise<Sample> {
  const url = new URL(target.url);
  return new Promise<Sample>((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent,
        headers: { ...target.headers, 'content-type': 'application/json', 'content-length': body.length },
      },
      (res) => {
        let ttfbMs = Number.NaN;
        let events = 0;
        res.setEncoding('utf8');
        res.on('data', (text: string) => {
          if (Number.isNaN(ttfbMs)) ttfbMs = Number(process.hrtime.bigint() - started) / 1e6;
          events += countEvents(text);
        });
        res.on('error', reject);
        res.on('end', () => {
          const ms = Number(process.hrtime.bigint() - started) / 1e6;
          if (res.statusCode === 200) resolve({ ms, ttfbMs, events });
          else reject(new Error(`${target.name} answered ${res.statusCode}`));
        });
      },
    );
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error(`${target.name} took more than 10 s`)));
    req.end(body);
  });
}

/** Options of {@link oneAtATime}. */
export interface OneAtATimeOptions {
  /** Measured requests per target. */
  requests: number;
  /** Requests per target per round; targets take turns round by round. */
  roundSize: number;
  /** Unmeasured requests per target first (JIT, connections). */
  warmup: number;
  /** The whole regime stops after this many ms, even with requests left. */
  budgetMs: number;
}

/**
 * One request at a time per target, targets alternating in rounds (the order rotates every
 * round, so that no target always follows the same one). Each target has its own keep-alive
 * connection. Stops by itself after `requests` per target or `budgetMs`, whichever comes first.
 */
export async function oneAtATime(
  targets: readonly Target[],
  options: OneAtATimeOptions,
): Promise<Map<string, Samples>> {
  const agents = new Map(targets.map((t) => [t.name, new Agent({ keepAlive: true, maxSockets: 1 })]));
  const bodies = new Map(targets.map((t) => [t.name, Buffer.from(t.body)]));
  const samples = new Map<string, Samples>(targets.map((t) => [t.name, []]));
  const run = async (target: Target, count: number, keep: boolean) => {
    const agent = agents.get(target.name) as Agent;
    const body = bodies.get(target.name) as Buffer;
    const into = samples.get(target.name) as Samples;
    for (let i = 0; i < count; i++) {
      const sample = await timeOne(target, agent, body);
      if (keep) into.push(sample);
    }
  };
  try {
    for (const target of targets) await run(target, options.warmup, false);
    const deadline = Date.now() + options.budgetMs;
    const rounds = Math.ceil(options.requests / options.roundSize);
    for (let round = 0; round < rounds && Date.now() < deadline; round++) {
      for (let k = 0; k < targets.length; k++) {
        const target = targets[(round + k) % targets.length] as Target;
        const left = options.requests - (samples.get(target.name)?.length ?? 0);
        await run(target, Math.min(options.roundSize, left), true);
      }
    }
    return samples;
  } finally {
    for (const agent of agents.values()) agent.destroy();
  }
}

/** What autocannon's programmatic API returns (the fields the bench reads). */
interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  requests: { total: number };
}
interface AutocannonInstance extends PromiseLike<AutocannonResult> {
  on(
    event: 'response',
    listener: (client: unknown, status: number, bytes: number, responseTimeMs: number) => void,
  ): void;
}
type Autocannon = (options: {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  connections: number;
  duration: number;
  timeout: number;
}) => AutocannonInstance;

// autocannon ships CommonJS without types.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** One autocannon run against one target. */
export interface LoadRun {
  /** Answers with status 2xx. */
  ok: number;
  /** Non-2xx answers, connection errors and timeouts. */
  failed: number;
  seconds: number;
  /** Latency of every 2xx answer in ms (autocannon's own histogram rounds to whole ms). */
  latencies: number[];
  /** CPU time the target's own process used during the run, in µs, when it can be asked. */
  cpuMicros?: number | undefined;
}

/** `connections` concurrent keep-alive connections for `seconds` against one target. */
export async function underLoad(target: Target, connections: number, seconds: number): Promise<LoadRun> {
  const latencies: number[] = [];
  const cpuBefore = await target.cpuMicros?.();
  const instance = autocannon({
    url: target.url,
    method: 'POST',
    headers: { ...target.headers, 'content-type': 'application/json' },
    body: target.body,
    connections,
    duration: seconds,
    timeout: 10,
  });
  instance.on('response', (_client, status, _bytes, ms) => {
    if (status >= 200 && status < 300) latencies.push(ms);
  });
  const result = await instance;
  const cpuAfter = await target.cpuMicros?.();
  return {
    ok: latencies.length,
    failed: result.non2xx + result.errors + result.timeouts,
    seconds: result.duration,
    latencies,
    cpuMicros: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore,
  };
}
