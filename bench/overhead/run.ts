/**
 * `npm run bench:overhead`: what a gateway adds on top of an instant upstream, measured in one
 * run with targets alternating: directly, through a bare `node:http` pass-through proxy (the
 * floor for any Node.js gateway), through Switchyard (and, with `--baseline DIR`, through the
 * Switchyard of another source tree, side by side), and through Portkey's gateway when npx can
 * start it. Three parts: plain requests one at a time (median added latency) and under 32
 * connections (requests/s, p50, p99, CPU µs per request of the target's own process), the same
 * with a first route that answers 503 (one fallback per request), and streams (time to first
 * byte, chunks/s, streams/s, CPU µs per stream). Every loop is bounded in count and time.
 *
 *   tsx bench/overhead/run.ts [--requests 2000] [--stream-requests 500] [--seconds 6]
 *                             [--connections 32] [--no-portkey] [--portkey-wait 120] [--baseline DIR]
 */
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { INSTANT_MODEL } from './instant-upstream.js';
import { type LoadRun, oneAtATime, type Samples, underLoad } from './measure.js';
import { type LoadSummary, oneAtATimeTable, streamingTable, summarise, underLoadTable } from './report.js';
import { BENCH_PIPELINE, FALLBACK_PIPELINE } from './switchyard-target.js';
import { type Child, startChild, startPortkey, type Target } from './targets.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '2000' },
    'stream-requests': { type: 'string', default: '500' },
    round: { type: 'string', default: '100' },
    warmup: { type: 'string', default: '300' },
    seconds: { type: 'string', default: '6' },
    rounds: { type: 'string', default: '2' },
    connections: { type: 'string', default: '32' },
    'no-portkey': { type: 'boolean', default: false },
    'portkey-wait': { type: 'string', default: '120' },
    baseline: { type: 'string' },
  },
});
const num = (name: keyof typeof values) => {
  const value = Number(values[name]);
  if (!(value > 0)) throw new Error(`--${name} must be a positive number`);
  return value;
};
const REQUESTS = num('requests');
const STREAM_REQUESTS = num('stream-requests');
const CONNECTIONS = num('connections');
const SECONDS = num('seconds');
const ROUNDS = num('rounds');

const DIRECT = 'direct';
const BARE = 'bare proxy';
const SWITCHYARD = 'switchyard';
const BASELINE = 'switchyard (baseline)';
const PORTKEY = 'portkey';
const FALLBACK = ', fallback once';
const bodyFor = (model: string, stream = false) =>
  JSON.stringify({
    model,
    messages: [{ role: 'user', content: 'Say ok.' }],
    max_tokens: 5,
    ...(stream ? { stream: true } : {}),
  });

const children: Child[] = [];
const stopAll = () => {
  for (const child of children) child.stop();
};
process.once('exit', stopAll);
process.once('SIGINT', () => process.exit(130));

/** One real request, so that a misconfigured target is reported instead of measured. */
async function check(target: Target): Promise<string | undefined> {
  try {
    const res = await fetch(target.url, {
      method: 'POST',
      headers: { ...target.headers, 'content-type': 'application/json' },
      body: target.body,
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    return res.status === 200 ? undefined : `answered ${res.status}: ${text.slice(0, 160)}`;
  } catch (error) {
    return `request failed: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Each target's rounds of autocannon, alternating, after a 1 s warm-up each. */
async function loadAll(targets: readonly Target[]): Promise<Map<string, LoadSummary>> {
  for (const target of targets) await underLoad(target, CONNECTIONS, 1);
  const runs = new Map<string, LoadRun[]>(targets.map((t) => [t.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < targets.length; k++) {
      const target = targets[(round + k) % targets.length] as Target;
      runs.get(target.name)?.push(await underLoad(target, CONNECTIONS, SECONDS / ROUNDS));
    }
  }
  return new Map([...runs].map(([name, r]) => [name, summarise(r)]));
}

/** A target for the same server with another body (a stream, another pipeline). */
const variant = (target: Target, name: string, body: string): Target => ({ ...target, name, body });

async function main(): Promise<void> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const load = loadavg()[0]?.toFixed(1);
  log('starting the instant upstream, the bare proxy and Switchyard, each in its own process…');
  const upstream = await startChild(['upstream']);
  children.push(upstream);
  const portkey = values['no-portkey']
    ? Promise.resolve({ ok: false as const, reason: 'not requested (--no-portkey)' })
    : startPortkey(num('portkey-wait') * 1000);
  const bare = await startChild(['bare', String(upstream.port)]);
  children.push(bare);

  const base = `http://127.0.0.1`;
  const path = '/v1/chat/completions';
  const at = (child: Child, name: string, model: string, headers: Record<string, string> = {}): Target => ({
    name,
    url: `${base}:${child.port}${path}`,
    headers,
    body: bodyFor(model),
    cpuMicros: child.cpuMicros,
  });
  const targets: Target[] = [at(upstream, DIRECT, INSTANT_MODEL), at(bare, BARE, INSTANT_MODEL)];
  const switchyards: Target[] = [];
  const trees: [string, string | undefined][] = [[SWITCHYARD, undefined]];
  if (values.baseline !== undefined) trees.push([BASELINE, resolve(values.baseline)]);
  for (const [name, root] of trees) {
    const child = await startChild(['switchyard', String(upstream.port), ...(root ? [root] : [])]);
    children.push(child);
    const target = at(child, name, BENCH_PIPELINE);
    targets.push(target);
    switchyards.push(target);
  }
  const skipped = new Map<string, string>();
  log('waiting for Portkey (npx @portkey-ai/gateway)…');
  const started = await portkey;
  if (started.ok) {
    children.push(started.child);
    const target = at(started.child, PORTKEY, INSTANT_MODEL, {
      authorization: 'Bearer sk-bench',
      'x-portkey-provider': 'openai',
      'x-portkey-custom-host': `${base}:${upstream.port}/v1`,
    });
    const problem = await check(target);
    if (problem === undefined) targets.push(target);
    else skipped.set(PORTKEY, problem);
  } else {
    skipped.set(PORTKEY, started.reason);
  }
  const fallbacks = switchyards.map((t) => variant(t, `${t.name}${FALLBACK}`, bodyFor(FALLBACK_PIPELINE)));
  const streamable = targets.map((t) => variant(t, t.name, t.body.replace(/}$/, ',"stream":true}')));
  for (const target of [...targets, ...fallbacks]) {
    const problem = await check(target);
    if (problem !== undefined) throw new Error(`${target.name} ${problem}`);
  }
  // Portkey may not stream what it passes plainly: its row says why instead of ending the run.
  const streamSkipped = new Map(skipped);
  const streams: Target[] = [];
  for (const target of streamable) {
    const problem = await check(target);
    if (problem === undefined) streams.push(target);
    else if (target.name === PORTKEY) streamSkipped.set(PORTKEY, `streaming ${problem}`);
    else throw new Error(`${target.name} (streaming) ${problem}`);
  }
  const plain = [...targets, ...fallbacks];

  log(`one at a time: ${REQUESTS} requests per target…`);
  const options = { requests: REQUESTS, roundSize: num('round'), warmup: num('warmup'), budgetMs: 180_000 };
  const samples = await oneAtATime(plain, options);
  log(`${CONNECTIONS} connections: ${ROUNDS} × ${SECONDS / ROUNDS} s per target after a 1 s warm-up…`);
  const summaries = await loadAll(plain);
  log(`streams: ${STREAM_REQUESTS} one at a time per target, then ${CONNECTIONS} connections…`);
  const streamSamples: Map<string, Samples> = await oneAtATime(streams, {
    ...options,
    requests: STREAM_REQUESTS,
    warmup: Math.min(options.warmup, STREAM_REQUESTS),
  });
  const streamSummaries = await loadAll(streams);

  const names = [...plain.map((t) => t.name), ...skipped.keys()];
  const one = oneAtATimeTable(names, samples, skipped);
  const streamed = streamingTable(
    [...streams.map((t) => t.name), ...skipped.keys()],
    streamSamples,
    streamSummaries,
  );
  const out: string[] = [
    `overhead over an instant upstream on 127.0.0.1 — Node ${process.version}, ${cpus().length} CPUs, load average ${load} at the start`,
    '',
    `one request at a time (keep-alive node:http client, ${REQUESTS} per target in rounds of ${values.round}, alternating):`,
    one.text,
    '',
    `${CONNECTIONS} concurrent connections (autocannon, ${ROUNDS} × ${SECONDS / ROUNDS} s per target, alternating):`,
    underLoadTable(names, summaries, BARE),
    '',
    `streams (20 text chunks; ${STREAM_REQUESTS} one at a time per target, then ${CONNECTIONS} connections, ${ROUNDS} × ${SECONDS / ROUNDS} s):`,
    streamed.text,
  ];
  for (const [name, why] of streamSkipped)
    out.push('', `${name}: skipped${skipped.has(name) ? '' : ' in the streaming table'} — ${why}`);
  const sy = summaries.get(SWITCHYARD);
  const added = one.added.get(SWITCHYARD) ?? Number.NaN;
  const share = (sy?.perSecond ?? Number.NaN) / (summaries.get(BARE)?.perSecond ?? Number.NaN);
  const cpu = sy?.cpuPerRequest ?? Number.NaN;
  const ttfb = streamed.addedTtfb.get(SWITCHYARD) ?? Number.NaN;
  const goal = (what: string, met: boolean, value: string) =>
    `goal: ${what} — ${met ? 'met' : 'NOT met'} (${value})`;
  out.push(
    '',
    goal("Switchyard reaches ≥ 0.8× the bare proxy's requests/s", share >= 0.8, `${share.toFixed(2)}×`),
    goal('Switchyard adds ≤ 0.3 ms one at a time', added <= 0.3, `+${added.toFixed(3)} ms`),
    goal('Switchyard spends ≤ 150 µs CPU per request', cpu <= 150, `${cpu.toFixed(0)} µs`),
    goal('Switchyard adds ≤ 0.5 ms to the time to first byte', ttfb <= 0.5, `+${ttfb.toFixed(3)} ms`),
  );
  process.stdout.write(`${out.join('\n')}\n`);
}

main()
  .catch((error: unknown) => {
    process.stderr.write(
      `bench:overhead failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 1;
  })
  .finally(stopAll);
