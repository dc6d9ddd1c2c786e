/**
 * The demo's callers: a keep-alive HTTP client that sends chat requests to the gateway, with a
 * bound on requests in flight, and records what each caller saw (status, serving model and tier
 * from the evidence headers, attempts, upstream 429s on the route, latency).
 */
import { Agent, type ClientRequest, request } from 'node:http';

/** What one caller saw. */
export interface CallRecord {
  pipeline: string;
  /** Index of the scenario phase the request was sent in. */
  phase: number;
  /** Sent at, ms after the run started. */
  sentMs: number;
  /** Until the whole answer was read, in ms. */
  latencyMs: number;
  /** HTTP status; 0 when no answer came (connection error, or cut at the end of the run). */
  status: number;
  /** The run ended (or was stopped) before the answer came: not an error a user saw. */
  cut: boolean;
  /** Model key that answered (`x-switchyard-model`). */
  model: string | undefined;
  /** Tier of that model in the chain. */
  tier: number | undefined;
  /** Upstream attempts (`x-switchyard-attempts`). */
  attempts: number;
  /** Upstream 429s on the route (`x-switchyard-route`, e.g. `gpt-mini:429,llama-or:200`). */
  upstream429: number;
}

/** Running totals, kept as requests finish so that the live view never rescans the records. */
export interface DriverTotals {
  sent: number;
  ok: number;
  /** Answers other than 200, and requests that got no answer (except those cut at the end). */
  errors: number;
  /** Requests cut at the end of the run. */
  cut: number;
  attempts: number;
  upstream429: number;
  /** Upstream 429s inside requests that succeeded: the caller never saw them. */
  absorbed429: number;
  /** Successes by serving tier (index 0 = tier 1). */
  byTier: number[];
  /** Requests not sent because `maxInFlight` was reached (the machine could not keep up). */
  shed: number;
}

/** Options of {@link createLoadDriver}. */
export interface LoadDriverOptions {
  /** Gateway origin, e.g. `http://127.0.0.1:8787`. */
  baseUrl: string;
  /** Epoch ms the run started at. */
  startedAt: number;
  /** Upper bound of requests in flight; beyond it a request is shed and counted. */
  maxInFlight: number;
  /** Tier of a model key. */
  tierOf(model: string | undefined): number | undefined;
  /** Phase index at a time (ms after the start). */
  phaseAt(tMs: number): number;
}

/** A running driver. */
export interface LoadDriver {
  /** Sends one request on `pipeline`, now; never throws. */
  send(pipeline: string): void;
  readonly records: readonly CallRecord[];
  readonly totals: Readonly<DriverTotals>;
  readonly inFlight: number;
  /**
   * Waits for the requests in flight; after `timeoutMs` cuts the rest (recorded as `cut`).
   * Resolves `true` when everything finished on its own.
   */
  drain(timeoutMs: number): Promise<boolean>;
  /** Closes the kept-alive sockets. */
  close(): void;
}

/** Counts the upstream 429s of a route header, e.g. `gpt-mini:429,gemini-flash:429,llama-or:200` → 2. */
export function count429(route: string): number {
  let n = 0;
  for (const step of route.split(',')) if (step.slice(step.lastIndexOf(':') + 1) === '429') n++;
  return n;
}

export function createLoadDriver(options: LoadDriverOptions): LoadDriver {
  const url = new URL('/v1/chat/completions', options.baseUrl);
  // Keep-alive like a real client pool: a new TCP connection per request would measure the OS.
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxInFlight });
  const records: CallRecord[] = [];
  // Each request in flight, with how to record it as cut when the run ends before it does.
  const pending = new Map<ClientRequest, () => void>();
  const totals: DriverTotals = {
    sent: 0,
    ok: 0,
    errors: 0,
    cut: 0,
    attempts: 0,
    upstream429: 0,
    absorbed429: 0,
    byTier: [0, 0],
    shed: 0,
  };
  let idle: (() => void) | undefined;
  const bodies = new Map<string, string>();
  const bodyFor = (pipeline: string) => {
    let body = bodies.get(pipeline);
    if (body === undefined) {
      body = JSON.stringify({
        model: pipeline,
        messages: [{ role: 'user', content: 'Write a two-line reply to this comment: "Love the demo!"' }],
        max_tokens: 48,
      });
      bodies.set(pipeline, body);
    }
    return body;
  };

  const finish = (record: CallRecord) => {
    records.push(record);
    totals.attempts += record.attempts;
    totals.upstream429 += record.upstream429;
    if (record.status === 200) {
      totals.ok++;
      totals.absorbed429 += record.upstream429;
      const tier = record.tier ?? 0;
      while (totals.byTier.length < tier) totals.byTier.push(0);
      if (tier > 0) totals.byTier[tier - 1] = (totals.byTier[tier - 1] ?? 0) + 1;
    } else if (record.cut) {
      totals.cut++;
    } else {
      totals.errors++;
    }
    if (pending.size === 0) idle?.();
  };

  const send = (pipeline: string) => {
    const started = performance.now();
    const sentMs = Date.now() - options.startedAt;
    if (pending.size >= options.maxInFlight) {
      totals.shed++;
      return;
    }
    totals.sent++;
    const body = bodyFor(pipeline);
    const base = { pipeline, phase: options.phaseAt(sentMs), sentMs };
    const req = request(url, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    let done = false;
    const end = (record: Omit<CallRecord, keyof typeof base | 'latencyMs' | 'cut'>, cut = false) => {
      if (done) return;
      done = true;
      pending.delete(req);
      finish({ ...base, ...record, cut, latencyMs: Math.round(performance.now() - started) });
    };
    const none = { status: 0, model: undefined, tier: undefined, attempts: 0, upstream429: 0 };
    const noAnswer = () => end(none);
    req.on('response', (res) => {
      // The body is not needed, only its end: the latency is what the caller waited for.
      res.resume();
      res.on('end', () => {
        const header = (name: string) => {
          const value = res.headers[name];
          return typeof value === 'string' ? value : undefined;
        };
        const model = header('x-switchyard-model');
        end({
          status: res.statusCode ?? 0,
          model,
          tier: options.tierOf(model),
          attempts: Number(header('x-switchyard-attempts') ?? 0),
          upstream429: count429(header('x-switchyard-route') ?? ''),
        });
      });
      res.on('error', noAnswer);
    });
    req.on('error', noAnswer);
    pending.set(req, () => end(none, true));
    req.end(body);
  };

  return {
    send,
    records,
    totals,
    get inFlight() {
      return pending.size;
    },
    async drain(timeoutMs) {
      if (pending.size === 0) return true;
      const finished = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        idle = () => {
          clearTimeout(timer);
          resolve(true);
        };
      });
      idle = undefined;
      for (const [req, cut] of [...pending]) {
        cut();
        req.destroy();
      }
      return finished;
    },
    close: () => agent.destroy(),
  };
}
