/**
 * `npm run bench:overhead:profile`: a CPU profile of Switchyard under load, for one kind of
 * request. Starts the instant upstream and Switchyard (under `--cpu-prof`) in their own
 * processes, drives Switchyard with autocannon for a few seconds, stops it, and prints the
 * functions with the most self time, grouped by package or source file.
 *
 *   tsx bench/overhead/profile.ts [--stream] [--target switchyard|bare] [--seconds 5] [--connections 32]
 *                                 [--dir DIR] [--top 30] [--root DIR]
 *
 * `--root DIR` profiles the Switchyard of another source tree (as `bench:overhead --baseline`).
 */
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { CpuProfile } from '../profile-origins.js';
import { underLoad } from './measure.js';
import { layerOf } from './profile-layers.js';
import { table } from './report.js';
import { BENCH_PIPELINE } from './switchyard-target.js';
import { type Child, startChild } from './targets.js';

const { values } = parseArgs({
  options: {
    stream: { type: 'boolean', default: false },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '32' },
    dir: { type: 'string', default: 'bench/overhead/.profiles' },
    top: { type: 'string', default: '30' },
    target: { type: 'string', default: 'switchyard' },
    root: { type: 'string' },
  },
});

/** Where a function lives: a package, a project file, or Node's own code. */
function origin(url: string): string {
  if (url === '') return '(native / vm)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1] as string;
  if (url.startsWith('node:')) return url;
  const own = /\/((?:lambda|bench)\/.*)$/.exec(url);
  return own ? (own[1] as string) : url;
}

/** Self time per function and per origin, in µs, from one profile, counting samples after `fromUs` only. */
function selfTimes(profile: CpuProfile, fromUs: number) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const callerOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) callerOf.set(child, node.id);
  const perFunction = new Map<string, number>();
  const perOrigin = new Map<string, number>();
  const perLayer = new Map<string, number>();
  let total = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id);
    const us = profile.timeDeltas[i] ?? 0;
    at += us;
    if (at < fromUs || !frame || frame.functionName === '(idle)') return;
    total += us;
    const where = origin(frame.url);
    const name = `${frame.functionName || '(anonymous)'}  ${where}:${frame.lineNumber + 1}`;
    perFunction.set(name, (perFunction.get(name) ?? 0) + us);
    perOrigin.set(where, (perOrigin.get(where) ?? 0) + us);
    const callerId = callerOf.get(id);
    const layer = layerOf(frame, callerId === undefined ? undefined : byId.get(callerId));
    perLayer.set(layer, (perLayer.get(layer) ?? 0) + us);
  });
  return { perFunction, perOrigin, perLayer, total };
}

const ranked = (m: Map<string, number>, total: number, top: number) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, us]) => [name, (us / 1000).toFixed(0), `${((100 * us) / total).toFixed(1)} %`]);

async function main(): Promise<void> {
  const dir = resolve(values.dir ?? '.');
  await mkdir(dir, { recursive: true });
  const before = new Set(await readdir(dir));
  const children: Child[] = [];
  process.once('exit', () => {
    for (const child of children) child.stop();
  });
  const upstream = await startChild(['upstream']);
  children.push(upstream);
  const kind = values.target === 'bare' ? 'bare' : 'switchyard';
  const serverArgs = [
    kind,
    String(upstream.port),
    ...(kind === 'switchyard' && values.root ? [resolve(values.root)] : []),
  ];
  const server = await startChild(serverArgs, 30_000, ['--cpu-prof', '--cpu-prof-dir', dir]);
  children.push(server);
  const body = JSON.stringify({
    model: kind === 'bare' ? 'instant-model' : BENCH_PIPELINE,
    messages: [{ role: 'user', content: 'Say ok.' }],
    max_tokens: 5,
    ...(values.stream ? { stream: true } : {}),
  });
  const target = {
    cpuMicros: server.cpuMicros,
    name: kind,
    url: `http://127.0.0.1:${server.port}/v1/chat/completions`,
    headers: {},
    body,
  };
  const connections = Number(values.connections);
  // Start-up, module compilation and the JIT's first tiers are not what the profile is about.
  await underLoad(target, connections, 2);
  const fromUs = Number(process.hrtime.bigint() / 1000n);
  const run = await underLoad(target, connections, Number(values.seconds));
  await server.finish?.();
  const written = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile') && !before.has(f));
  if (written.length === 0) throw new Error(`no profile written to ${dir}`);
  const file = join(dir, written[0] as string);
  const { perFunction, perOrigin, perLayer, total } = selfTimes(
    JSON.parse(await readFile(file, 'utf8')),
    fromUs,
  );
  const top = Number(values.top);
  const perRequest = run.ok > 0 ? total / run.ok : Number.NaN;
  const cpuPerRequest = run.cpuMicros !== undefined && run.ok > 0 ? run.cpuMicros / run.ok : Number.NaN;
  const layers = [...perLayer]
    .sort((a, b) => b[1] - a[1])
    .map(([name, us]) => [name, (us / run.ok).toFixed(0), `${((100 * us) / total).toFixed(1)} %`]);
  process.stdout.write(
    [
      `${kind}, ${values.stream ? 'streaming' : 'non-streaming'}, ${connections} connections, ${values.seconds} s, Node ${process.version}: ${run.ok} answers (${run.failed} failed), ${(total / 1000).toFixed(0)} ms CPU sampled after a 2 s warm-up, ${perRequest.toFixed(0)} µs per answer (profiler included)`,
      `CPU time of the process (user + system) during the run: ${cpuPerRequest.toFixed(0)} µs per answer (profiler included)`,
      `profile: ${file}`,
      '',
      table(['self time by layer', 'µs/answer', 'share'], layers),
      '',
      table(['self time by origin', 'ms', 'share'], ranked(perOrigin, total, top)),
      '',
      table(['self time by function', 'ms', 'share'], ranked(perFunction, total, top)),
      '',
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`profile failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
