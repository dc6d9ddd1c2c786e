/**
 * `npm run bench:overhead`: what a gateway adds on top of an instant upstream, measured in one
 * run with targets alternating: directly, through a bare `node:http` pass-through proxy (the
 * floor for any Node.js gateway), through Switchyard, and through Portkey's gateway when npx can
 * start it. Two regimes: one request at a time (median added latency) and 32 concurrent
 * connections (requests/s, p50, p99). Every loop is bounded in count and time.
 *
 *   tsx bench/overhead/run.ts [--requests 2000] [--seconds 6] [--connections 32]
 *                             [--no-portkey] [--portkey-wait 120] [--switchyard-fetch default|global|both]
 */
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { INSTANT_MODEL } from './instant-upstream.js';
import { type LoadRun, oneAtATime, underLoad } from './measure.js';
import { type LoadSummary, oneAtATimeTable, summarise, underLoadTable } from './report.js';
import { BENCH_PIPELINE } from './switchyard-target.js';
import { type Child, startChild, startPortkey, type Target } from './targets.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '2000' },
    round: { type: 'string', default: '100' },
    warmup: { type: 'string', default: '300' },
    seconds: { type: 'string', default: '6' },
    rounds: { type: 'string', default: '2' },
    connections: { type: 'string', default: '32' },
    'no-portkey': { type: 'boolean', default: false },
    'portkey-wait': { type: 'string', default: '120' },
    'switchyard-fetch': { type: 'string', default: 'default' },
  },
});
const num = (name: keyof typeof values) => {
  const value = Number(values[name]);
  if (!(value > 0)) throw new Error(`--${name} must be a positive number`);
  return value;
};
const REQUESTS = num('requests');
const CONNECTIONS = num('connections');
const SECONDS = num('seconds');
const ROUNDS = num('rounds');
const fetchChoice = values['switchyard-fetch'];
if (!['default', 'global', 'both'].includes(fetchChoice ?? '')) {
  throw new Error('--switchyard-fetch must be default, global or both');
}

const DIRECT = 'direct';
const BARE = 'bare proxy';
const SWITCHYARD = 'switchyard';
const SWITCHYARD_GLOBAL = 'switchyard (global fetch)';
const PORTKEY = 'portkey';
const bodyFor = (model: string) =>
  JSON.stringify({ model, messages: [{ role: 'user', content: 'Say ok.' }], max_tokens: 5 });

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

async function main(): Promise<void> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
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
  const targets: Target[] = [
    {
      name: DIRECT,
      url: `${base}:${upstream.port}${path}`,
      headers: {},
      body: bodyFor(INSTANT_MODEL),
      cpuMicros: upstream.cpuMicros,
    },
    {
      name: BARE,
      url: `${base}:${bare.port}${path}`,
      headers: {},
      body: bodyFor(INSTANT_MODEL),
      cpuMicros: bare.cpuMicros,
    },
  ];
  const variants: [string, string][] =
    fetchChoice === 'both'
      ? [
          [SWITCHYARD, 'default'],
          [SWITCHYARD_GLOBAL, 'global'],
        ]
      : [[fetchChoice === 'global' ? SWITCHYARD_GLOBAL : SWITCHYARD, fetchChoice ?? 'default']];
  for (const [name, choice] of variants) {
    const child = await startChild(['switchyard', String(upstream.port), choice]);
    children.push(child);
    targets.push({
      name,
      url: `${base}:${child.port}${path}`,
      headers: {},
      body: bodyFor(BENCH_PIPELINE),
      cpuMicros: child.cpuMicros,
    });
  }
  const skipped = new Map<string, string>();
  log('waiting for Portkey (npx @portkey-ai/gateway)…');
  const started = await portkey;
  if (started.ok) {
    children.push(started.child);
    const target: Target = {
      name: PORTKEY,
      url: `${base}:${started.child.port}${path}`,
      headers: {
        authorization: 'Bearer sk-bench',
        'x-portkey-provider': 'openai',
        'x-portkey-custom-host': `${base}:${upstream.port}/v1`,
      },
      body: bodyFor(INSTANT_MODEL),
      cpuMicros: started.child.cpuMicros,
    };
    const problem = await check(target);
    if (problem === undefined) targets.push(target);
    else skipped.set(PORTKEY, problem);
  } else {
    skipped.set(PORTKEY, started.reason);
  }
  for (const target of targets) {
    const problem = await check(target);
    if (problem !== undefined) throw new Error(`${target.name} ${problem}`);
  }

  log(`one at a time: ${REQUESTS} requests per target…`);
  const samples = await oneAtATime(targets, {
    requests: REQUESTS,
    roundSize: num('round'),
    warmup: num('warmup'),
    budgetMs: 120_000,
  });

  log(`${CONNECTIONS} connections: ${ROUNDS} × ${SECONDS / ROUNDS} s per target after a 1 s warm-up…`);
  for (const target of targets) await underLoad(target, CONNECTIONS, 1);
  const runs = new Map<string, LoadRun[]>(targets.map((t) => [t.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < targets.length; k++) {
      const target = targets[(round + k) % targets.length] as Target;
      runs.get(target.name)?.push(await underLoad(target, CONNECTIONS, SECONDS / ROUNDS));
    }
  }
  const summaries = new Map<string, LoadSummary>([...runs].map(([name, r]) => [name, summarise(r)]));

  const names = [...targets.map((t) => t.name), ...skipped.keys()];
  const one = oneAtATimeTable(names, samples, skipped);
  const out: string[] = [
    `overhead over an instant upstream on 127.0.0.1 — Node ${process.version}, ${cpus().length} CPUs`,
    '',
    `one request at a time (keep-alive node:http client, ${REQUESTS} per target in rounds of ${values.round}, alternating):`,
    one.text,
    '',
    `${CONNECTIONS} concurrent connections (autocannon, ${ROUNDS} × ${SECONDS / ROUNDS} s per target, alternating):`,
    underLoadTable(names, summaries, BARE),
  ];
  for (const [name, why] of skipped) out.push('', `${name}: skipped — ${why}`);
  const sy = summaries.get(SWITCHYARD) ?? summaries.get(SWITCHYARD_GLOBAL);
  const added = one.added.get(SWITCHYARD) ?? one.added.get(SWITCHYARD_GLOBAL) ?? Number.NaN;
  const share = (sy?.perSecond ?? Number.NaN) / (summaries.get(BARE)?.perSecond ?? Number.NaN);
  out.push(
    '',
    `goal: Switchyard adds ≤ 1 ms one at a time — ${added <= 1 ? 'met' : 'NOT met'} (+${added.toFixed(3)} ms)`,
    `goal: Switchyard reaches ≥ 0.8× the bare proxy's throughput — ${share >= 0.8 ? 'met' : 'NOT met'} (${share.toFixed(2)}×)`,
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
