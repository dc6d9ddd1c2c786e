/**
 * `npm run bench:cold-start:profile`: where a handler's module initialisation goes. The handler is
 * bundled as deployed but not minified (esbuild marks each module with a `// path` comment, which
 * is how samples are attributed to a package or a project folder), the embedded config and the
 * record of its validation are placed beside it as `cdk synth` places them, and it is imported in fresh processes under `--cpu-prof`;
 * the samples are summed by origin, by function, and by the nearest project function on the
 * stack (who made zod work at import: a schema built at top level shows the bundle's top level).
 *
 *   npm run bench:cold-start:profile [-- --handler api.ts] [--runs 5] [--top 20]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { embeddedConfig } from '../../lambda/config/config-file.js';
import { validatedConfigRecord, validatedRecordPath } from '../../lambda/config/validated-config.js';
import { bundleEntry, lambdaBuildOptions } from '../../lib/lambda-bundle.js';
import { type CpuProfile, moduleLines, originOf } from '../profile-origins.js';

const { values } = parseArgs({
  options: {
    handler: { type: 'string', default: 'api.ts' },
    runs: { type: 'string', default: '5' },
    top: { type: 'string', default: '20' },
  },
});
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const runs = Number(values.runs);

const dir = mkdtempSync(join(ROOT, 'bench', 'cold-start', '.profile-'));
try {
  const asset = join(dir, 'asset');
  await build({
    ...lambdaBuildOptions(join(ROOT, 'lambda', 'handlers', values.handler), asset, ROOT),
    minify: false,
  });
  // As `cdk synth` ships it: the config and the record of its validation beside it.
  const configText = JSON.stringify(embeddedConfig());
  writeFileSync(join(asset, 'switchyard.config.json'), configText);
  writeFileSync(
    validatedRecordPath(join(asset, 'switchyard.config.json')),
    validatedConfigRecord(configText, 'embedded'),
  );
  const probe = join(dir, 'probe.mjs');
  writeFileSync(
    probe,
    'globalThis.awslambda = { streamifyResponse: (f) => f, HttpResponseStream: { from: (s) => s } };\n' +
      `const t = performance.now(); await import(${JSON.stringify(bundleEntry(asset))}); process.stdout.write(String(performance.now() - t));`,
  );
  const profiles = join(dir, 'profiles');
  mkdirSync(profiles);
  const walls: number[] = [];
  for (let i = 0; i < runs; i++) {
    const out = execFileSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', profiles, probe], {
      cwd: asset,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '',
        AWS_REGION: 'us-east-1',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        SWITCHYARD_CONFIG: 'switchyard.config.json',
        POWERTOOLS_SERVICE_NAME: 'switchyard',
      },
    });
    walls.push(Number(out));
  }
  const lines = new Map<string, string[]>();
  const moduleOf = (url: string, line: number): string => {
    if (url === '') return '(native: GC, compile, V8)';
    if (!url.startsWith('file://')) return url;
    const path = fileURLToPath(url);
    if (!path.startsWith(asset)) return path.replace(ROOT, '');
    let owners = lines.get(path);
    if (!owners) {
      owners = moduleLines(path);
      lines.set(path, owners);
    }
    return owners[line] ?? '(bundle glue)';
  };
  const perOrigin = new Map<string, number>();
  const perFunction = new Map<string, number>();
  const perCaller = new Map<string, number>();
  let total = 0;
  const add = (m: Map<string, number>, k: string, us: number) => m.set(k, (m.get(k) ?? 0) + us);
  for (const file of readdirSync(profiles)) {
    const profile = JSON.parse(readFileSync(join(profiles, file), 'utf8')) as CpuProfile;
    const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
    const parents = new Map<number, number>();
    for (const n of profile.nodes) for (const child of n.children ?? []) parents.set(child, n.id);
    /** The nearest frame on the stack that is project code, a named function or the bundle's top level. */
    const projectCaller = (id: number): string => {
      for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
        const frame = frames.get(at);
        if (!frame?.url.startsWith('file://')) continue;
        const module = moduleOf(frame.url, frame.lineNumber);
        if (module.startsWith('lambda/')) return `${frame.functionName || '(top level)'}  ${module}`;
        if (module === '(bundle glue)') return `top level of ${frame.url.split('/').slice(-2).join('/')}`;
      }
      return '(no project frame)';
    };
    profile.samples.forEach((id, i) => {
      const us = profile.timeDeltas[i] ?? 0;
      const frame = frames.get(id);
      if (!frame || frame.functionName === '(idle)' || frame.functionName === '(program)') return;
      total += us;
      const module = moduleOf(frame.url, frame.lineNumber);
      const origin =
        module.startsWith('lambda/') || module.startsWith('node_modules/') ? originOf(module) : module;
      add(perOrigin, origin, us);
      add(perFunction, `${frame.functionName || '(anonymous)'}  ${origin}`, us);
      if (origin === 'zod') add(perCaller, projectCaller(id), us);
    });
  }
  const top = Number(values.top);
  const rows = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(
        ([name, us]) =>
          `| ${name} | ${(us / runs / 1000).toFixed(1)} | ${((100 * us) / total).toFixed(1)} % |`,
      );
  const sorted = [...walls].sort((a, b) => a - b);
  console.log(
    [
      `lambda/handlers/${values.handler} bundled as deployed but not minified, ${runs} fresh imports under --cpu-prof, Node ${process.version}; module init median ${sorted[Math.floor(runs / 2)]?.toFixed(1)} ms (profiler on); ${(total / runs / 1000).toFixed(1)} ms sampled per import (idle and (program) left out)`,
      '',
      '| self time by origin | ms per import | share |',
      '|---|---|---|',
      ...rows(perOrigin),
      '',
      '| self time by function | ms per import | share |',
      '|---|---|---|',
      ...rows(perFunction),
      '',
      '| zod self time by the nearest project frame | ms per import | share of all |',
      '|---|---|---|',
      ...rows(perCaller),
    ].join('\n'),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
