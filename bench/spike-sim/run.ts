/**
 * `npm run bench:spike-sim`: replays one hour of seed-000 traffic (baseline, demo spikes, cron
 * bursts) against simulated providers on a virtual clock, once per routing strategy, on the
 * same trace with the same seeds, and prints what each strategy made of it. The last two rows
 * are Switchyard's defaults and the same with recovery `ramp`.
 *
 *   tsx bench/spike-sim/run.ts [--seed 0] [--scenario demo-day|recovery]
 *
 * `--scenario recovery`: a primary down 60 s then healthy (recovery-scenario.ts).
 */
import { parseArgs } from 'node:util';
import { seededRandom } from '../../lambda/wiring/seeded-random.js';
import { runRecoveryScenario } from './recovery-scenario.js';
import { ATTEMPT_TIMEOUT_MS, CHAIN, PROVIDERS, START, TRACE } from './scenario.js';
import { createSimProvider, type ProviderStats } from './sim-provider.js';
import { type Strategy, strategies, tiersOf } from './strategies.js';
import { type Arrival, checkCapacity, generateTrace, type Trace } from './trace.js';
import { VirtualTime } from './virtual-time.js';

const FIRST_TIER = new Set(tiersOf(CHAIN)[0]?.members.map((m) => m.key));

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '0' },
    scenario: { type: 'string', default: 'demo-day' },
    only: { type: 'string' },
  },
});
if (values.scenario !== 'demo-day' && values.scenario !== 'recovery') {
  throw new Error('--scenario must be demo-day (the default) or recovery');
}
const SEED = Number(values.seed);
if (!Number.isInteger(SEED) || SEED < 0) throw new Error('--seed must be a non-negative integer');

/** What one strategy made of the trace. */
interface Outcome {
  name: string;
  requests: number;
  succeeded: number;
  /** Requests still running when the simulation stopped (never expected). */
  unfinished: number;
  p95Ms: number;
  stats: ProviderStats[];
}

function quantile(values: Float64Array, q: number): number {
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

/** Replays the trace with one strategy; every strategy gets the same seeds. */
async function simulate(strategy: Strategy, arrivals: readonly Arrival[]): Promise<Outcome> {
  const time = new VirtualTime(START);
  const sims = PROVIDERS.map((spec, i) =>
    createSimProvider(spec, time, START, seededRandom(SEED * 1_000 + 11 + i)),
  );
  const route = strategy.build({
    time,
    models: new Map(sims.map((s) => [s.model.key, s.model])),
    random: seededRandom(SEED * 1_000 + 7),
    timeoutMs: ATTEMPT_TIMEOUT_MS,
    quotas: new Map(
      PROVIDERS.map((p) => [p.modelKey, { perMinute: p.quotaPerMinute, burstSeconds: p.burstSeconds }]),
    ),
  });
  const latencies = new Float64Array(arrivals.length);
  let finished = 0;
  let succeeded = 0;
  arrivals.forEach((arrival, i) => {
    time.at(START + arrival.atMs, () => {
      route(arrival.pipeline, `req-${i}`).then((ok) => {
        latencies[i] = time.now() - START - arrival.atMs;
        finished++;
        if (ok) succeeded++;
      });
    });
  });
  // Bounded: every request has a 15 s deadline; the clock stops two minutes after the last arrival.
  await time.run(START + TRACE.durationS * 1_000 + 120_000);
  return {
    name: strategy.name,
    requests: arrivals.length,
    succeeded,
    unfinished: arrivals.length - finished,
    p95Ms: quantile(latencies, 0.95),
    stats: sims.map((s) => s.stats),
  };
}

const clock = (offsetMs: number) => new Date(START + offsetMs).toISOString().slice(11, 19);
const duration = (s: number) => `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
const int = (n: number) => n.toLocaleString('en-US');

function describe(trace: Trace): string[] {
  const capacity = checkCapacity(trace.arrivals, PROVIDERS);
  const providers = PROVIDERS.map((p) => {
    const outage = p.outage
      ? `, ${p.outage.status} from ${clock(p.outage.startMs)} to ${clock(p.outage.endMs)}`
      : '';
    return `${p.modelKey} ${int(p.quotaPerMinute)} rpm (${p.burstSeconds} s burst, median ${p.latency.medianMs} ms${outage})`;
  });
  const spikes = trace.spikes.map(
    (s) => `${clock(s.start * 1000)} for ${duration(TRACE.rampUpS + s.hold + TRACE.rampDownS)}`,
  );
  const bursts = trace.bursts.map((b) => `${clock(b.atS * 1000)} ${b.pipelines} pipelines / ${b.jobs} jobs`);
  const suffices =
    capacity.unservable === 0
      ? 'total capacity suffices: yes, an ideal router finds quota for every request'
      : `total capacity suffices: NO, ${int(capacity.unservable)} requests find every quota spent`;
  return [
    `spike-sim: seed-000 scenario, trace seed ${SEED}: one hour (${clock(0)}–${clock(TRACE.durationS * 1000)} UTC, virtual), ${int(trace.arrivals.length)} requests, the same trace for every strategy`,
    `chain      ${CHAIN}`,
    `providers  ${providers.join('; ')}`,
    `traffic    baseline ~${TRACE.baselinePerSecond} req/s; demo spikes to ${TRACE.spikeFactor}× at ${spikes.join(', ')}; cron bursts ${bursts.join(', ')}`,
    `capacity   ${suffices} (peak second: ${capacity.peakSecond.requests} requests at ${clock(capacity.peakSecond.atMs)}; peak minute: ${capacity.peakMinutePerSecond.toFixed(0)} req/s; sustained quota ${capacity.sustainedPerSecond.toFixed(0)} req/s, ${capacity.sustainedDuringOutagePerSecond.toFixed(0)} req/s during the outage)`,
  ];
}

/** Answers that came from the first tier (the official endpoints): cheaper and faster. */
const tierOne = (o: Outcome) =>
  o.stats.reduce((n, s, i) => n + (FIRST_TIER.has(PROVIDERS[i]?.modelKey ?? '') ? s.ok : 0), 0);

function table(outcomes: readonly Outcome[]): string {
  const header = [
    'strategy',
    'requests',
    'success %',
    'p95 ms',
    'calls/request',
    'calls into 429ing routes',
    'calls into the outage',
    'answered by tier 1',
  ];
  const rows = outcomes.map((o) => {
    const calls = o.stats.reduce((n, s) => n + s.calls, 0);
    return [
      o.name,
      int(o.requests),
      ((100 * o.succeeded) / o.requests).toFixed(2),
      o.p95Ms.toFixed(0),
      (calls / o.requests).toFixed(2),
      int(o.stats.reduce((n, s) => n + s.rateLimited, 0)),
      int(o.stats.reduce((n, s) => n + s.outage, 0)),
      `${((100 * tierOne(o)) / Math.max(1, o.succeeded)).toFixed(0)} %`,
    ];
  });
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all
    .map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  '))
    .join('\n');
}

const limited = (o: Outcome) => o.stats.reduce((n, s) => n + s.rateLimited, 0);
const successRate = (o: Outcome) => (100 * o.succeeded) / o.requests;
const met = (ok: boolean) => (ok ? 'met' : 'NOT met');

const DEFAULTS = 'Switchyard defaults';
const RAMP = 'Switchyard with ramp';
const QUOTAS = 'Switchyard defaults, quotas declared';
const QUOTAS_BURST = 'Switchyard defaults, tier-1 quotas declared at the burst';
const named = (outcomes: readonly Outcome[], name: string) => outcomes.find((o) => o.name === name);

/** The goals of Switchyard's defaults, against the strategies that are not Switchyard's defaults or variants of them. */
function goals(outcomes: readonly Outcome[]): string[] {
  const sy = named(outcomes, DEFAULTS);
  if (!sy) return [];
  const calls = sy.stats.reduce((n, s) => n + s.calls, 0) / sy.requests;
  const success = successRate(sy);
  const others = outcomes
    .filter((o) => ![DEFAULTS, RAMP, QUOTAS, QUOTAS_BURST].includes(o.name))
    .map(limited);
  const fewest = others.every((n) => limited(sy) < n);
  return [
    `goal: Switchyard ≥ 99.9 % success while capacity suffices — ${met(success >= 99.9)} (${success.toFixed(2)} %)`,
    `goal: ≤ 1.3 upstream calls per request — ${met(calls <= 1.3)} (${calls.toFixed(2)})`,
    `goal: fewer calls into rate-limiting routes than every other strategy — ${met(fewest)} (${int(limited(sy))} vs at least ${int(Math.min(...others))})`,
  ];
}

/** The ramp's goal (issue 16): fewer calls into rate-limiting routes than the defaults, at the same success rate. */
function rampGoal(outcomes: readonly Outcome[]): string[] {
  const defaults = named(outcomes, DEFAULTS);
  const ramp = named(outcomes, RAMP);
  if (!defaults || !ramp) return [];
  const same = successRate(ramp).toFixed(2) === successRate(defaults).toFixed(2);
  const fewer = limited(ramp) < limited(defaults);
  return [
    'goal: with ramp, fewer calls into rate-limiting routes than the defaults at the same success rate — ' +
      `${met(same && fewer)} (${int(limited(ramp))} vs ${int(limited(defaults))}; ` +
      `${successRate(ramp).toFixed(2)} % vs ${successRate(defaults).toFixed(2)} %)`,
  ];
}

/** The declared quotas' goal (issue 29 item 3): no call into a 429 while the declared quotas are right. */
function quotaGoal(outcomes: readonly Outcome[]): string[] {
  return [QUOTAS, QUOTAS_BURST].flatMap((name) => {
    const quotas = named(outcomes, name);
    if (!quotas) return [];
    return [
      `goal: ${name.replace('Switchyard defaults, ', '')}, no call into rate-limiting routes — ` +
        `${met(limited(quotas) === 0)} (${int(limited(quotas))}; ${successRate(quotas).toFixed(2)} % success)`,
    ];
  });
}

async function main(): Promise<void> {
  const started = performance.now();
  if (values.scenario === 'recovery') {
    const lines = await runRecoveryScenario(SEED);
    lines.push(`(in ${((performance.now() - started) / 1000).toFixed(1)} s)`);
    process.stdout.write(`${lines.join('\n')}\n`);
    return;
  }
  // A 429 is an everyday answer here: hundreds of thousands of errors and aborts are created,
  // and capturing a stack trace for each was half the run time. The simulation never prints one.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  const trace = generateTrace(TRACE, seededRandom(SEED));
  const outcomes: Outcome[] = [];
  const only = values.only;
  for (const strategy of strategies(CHAIN, 'officialA').filter((s) => !only || s.name.includes(only))) {
    process.stderr.write(`simulating: ${strategy.name}…\n`);
    outcomes.push(await simulate(strategy, trace.arrivals));
  }
  Error.stackTraceLimit = stackTraceLimit;
  const unfinished = outcomes.filter((o) => o.unfinished > 0);
  const lines = [
    ...describe(trace),
    '',
    table(outcomes),
    '',
    ...goals(outcomes),
    ...rampGoal(outcomes),
    ...quotaGoal(outcomes),
  ];
  for (const o of unfinished) lines.push(`warning: ${o.name} left ${o.unfinished} requests unfinished`);
  lines.push(
    `(${outcomes.length} strategies × one virtual hour in ${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench:spike-sim failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
