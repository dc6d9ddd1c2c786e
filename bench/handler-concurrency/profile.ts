/**
 * `npm run bench:handler-concurrency:profile`: where the CPU of one invocation of the bundled API
 * handler goes. The handler is bundled as deployed but not minified (esbuild then marks each
 * module's code with a `// path` comment, which is how samples are attributed to a package or a
 * project folder), run in the probe of bench/handler-concurrency under `--cpu-prof`, and the
 * samples taken after the warm-up are summed by origin and by function.
 *
 *   npm run bench:handler-concurrency:profile [-- --in-flight 1] [--invocations 2000] [--top 25] [--store dynamodb|memory]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { bundleEntry, lambdaBuildOptions } from '../../lib/lambda-bundle.js';
import { type CpuProfile, moduleLines, originOf } from '../profile-origins.js';
import { startConcurrencyRig } from './rig.js';

const { values } = parseArgs({
  options: {
    'in-flight': { type: 'string', default: '1' },
    invocations: { type: 'string', default: '2000' },
    top: { type: 'string', default: '25' },
    store: { type: 'string', default: 'dynamodb' },
  },
});
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const dir = mkdtempSync(join(ROOT, 'bench', 'handler-concurrency', '.profile-'));
const rig = await startConcurrencyRig();
try {
  await build({
    ...lambdaBuildOptions(join(ROOT, 'lambda', 'handlers', 'api.ts'), dir, ROOT),
    minify: false,
  });
  const inFlight = Number(values['in-flight']);
  const invocations = Number(values.invocations);
  const profiles = join(dir, 'profiles');
  const figures = await rig.runProbe(bundleEntry(dir), 'profile', {
    levels: [inFlight],
    invocations,
    warmup: 300,
    nodeArgs: ['--cpu-prof', '--cpu-prof-dir', profiles],
    store: values.store === 'memory' ? 'memory' : 'dynamodb',
  });
  const [file] = readdirSync(profiles).filter((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error('no profile written');
  const profile = JSON.parse(readFileSync(join(profiles, file), 'utf8')) as CpuProfile;
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const parents = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parents.set(child, n.id);
  /** The nearest JavaScript caller of a native frame (e.g. who called `writev`). */
  const callerOf = (id: number): string => {
    for (let at = parents.get(id); at !== undefined; at = parents.get(at)) {
      const frame = frames.get(at);
      if (frame?.url) return `${frame.functionName || '(anonymous)'} ${ownerOf(frame.url, frame.lineNumber)}`;
    }
    return 'no JavaScript caller';
  };
  const lines = new Map<string, string[]>();
  const ownerOf = (url: string, line: number): string => {
    if (url === '') return '(native: GC, system calls, V8)';
    if (url.startsWith('node:')) return url;
    if (!url.startsWith('file://')) return url;
    const path = fileURLToPath(url);
    if (!path.startsWith(dir)) return path.replace(ROOT, '');
    let owners = lines.get(path);
    if (!owners) {
      owners = moduleLines(path);
      lines.set(path, owners);
    }
    return originOf(owners[line] ?? '(bundle glue)');
  };
  const perOrigin = new Map<string, number>();
  const perFunction = new Map<string, number>();
  let total = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    at += us;
    const frame = frames.get(id);
    if (at < figures.levelsFromUs || !frame || frame.functionName === '(idle)') return;
    total += us;
    const origin = ownerOf(frame.url, frame.lineNumber);
    perOrigin.set(origin, (perOrigin.get(origin) ?? 0) + us);
    const name = frame.url
      ? `${frame.functionName || '(anonymous)'}  ${origin}`
      : `${frame.functionName || '(anonymous)'} ← ${callerOf(id)}`;
    perFunction.set(name, (perFunction.get(name) ?? 0) + us);
  });
  const level = figures.levels[0];
  const top = Number(values.top);
  const rows = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(
        ([name, us]) =>
          `| ${name} | ${(us / invocations).toFixed(0)} | ${((100 * us) / total).toFixed(1)} % |`,
      );
  console.log(
    [
      `Bundled API handler (not minified), ${values.store} breaker store, ${inFlight} in flight, ${invocations} invocations after 300 of warm-up, Node ${process.version}; ${level ? `${(level.cpuUsPerInvocation / 1000).toFixed(2)} ms CPU per invocation, ${(level.systemUsPerInvocation / 1000).toFixed(2)} ms of it system (process.cpuUsage, profiler on)` : ''}; ${(total / invocations / 1000).toFixed(2)} ms sampled per invocation`,
      '',
      '| self time by origin | µs per invocation | share |',
      '|---|---|---|',
      ...rows(perOrigin),
      '',
      '| self time by function | µs per invocation | share |',
      '|---|---|---|',
      ...rows(perFunction),
    ].join('\n'),
  );
} finally {
  await rig.close();
  rmSync(dir, { recursive: true, force: true });
}
