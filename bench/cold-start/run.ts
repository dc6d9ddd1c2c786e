/**
 * bench/cold-start: each Lambda bundle exactly as `cdk synth` builds it (the stack is synthesised
 * and its assets read back: esbuild flags, source map or not, `NODE_OPTIONS` from the template),
 * its size (`index.mjs`, the chunks loaded on first use, source maps, zipped asset) and its module
 * initialisation time in fresh Node processes on this machine; then the same handlers built the
 * other way on each choice (one eager file instead of chunks; the other source-map choice), to
 * show what each choice is worth. Goal (issues 13, 30): the API code loaded at init (`index.mjs`
 * and the chunks it imports statically) ≤ 1.2 MB and ≤ 100 ms of module init.
 *
 *   npm run bench:cold-start [-- --save DIR] [--against DIR] [--deployed-only]
 *
 * `--save DIR` only synthesises and keeps the deployed assets in DIR (run it on the tree before a
 * change); `--against DIR` times those saved assets too, in turn with this tree's, as the row
 * `before (saved)`, so that before and after meet the same load on a shared machine.
 * `--deployed-only` leaves out the alternative builds.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { deflateRawSync } from 'node:zlib';
import { embeddedConfig } from '../../lambda/config/config-file.js';
import { LAMBDA_BUNDLE } from '../../lib/lambda-bundle.js';
import { loadedAtInit } from './loaded-at-init.js';
import { type SynthesisedBundle, synthAlternativeBundles, synthStackBundles } from './synth-bundles.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RUNS = 15;
const { values: options } = parseArgs({
  options: {
    save: { type: 'string' },
    against: { type: 'string' },
    'deployed-only': { type: 'boolean', default: false },
  },
});

const out = mkdtempSync(join(ROOT, 'bench', 'cold-start', '.out-'));
process.on('exit', () => rmSync(out, { recursive: true, force: true }));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

/** A probe that imports one bundle in a fresh process, run where Lambda runs it (the asset directory). */
function probeOf(bundle: SynthesisedBundle): () => number {
  const probe = join(out, `probe-${bundle.dir.split('/').slice(-2).join('-')}.mjs`);
  writeFileSync(
    probe,
    // The Node.js runtime defines `awslambda` before it loads a handler; a streaming handler needs it at import.
    'globalThis.awslambda = { streamifyResponse: (f) => f, HttpResponseStream: { from: (s) => s } };\n' +
      `const t = performance.now(); await import(${JSON.stringify(join(bundle.dir, 'index.mjs'))}); process.stdout.write(String(performance.now() - t));`,
  );
  const env = {
    PATH: process.env.PATH ?? '',
    AWS_REGION: 'us-east-1',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    ...bundle.environment,
  };
  return () => {
    try {
      return Number(execFileSync(process.execPath, [probe], { env, cwd: bundle.dir, encoding: 'utf8' }));
    } catch (error) {
      // A minified bundle's error prints a whole line of code: the last lines say what failed.
      const stderr = String((error as { stderr?: unknown }).stderr ?? error);
      throw new Error(
        `${bundle.handlerFile} failed to load: ${stderr.split('\n').slice(-6).join('\n').slice(-1500)}`,
      );
    }
  };
}

/**
 * Module initialisation times in ms, one fresh process each, of every build of a handler taken
 * in turn run by run, so that load on the machine falls on every build alike.
 */
function interleavedInitTimes(builds: SynthesisedBundle[]): number[][] {
  const probes = builds.map(probeOf);
  const times = builds.map((): number[] => []);
  for (let i = 0; i < RUNS; i++) {
    for (const [b, probe] of probes.entries()) times[b]?.push(probe());
  }
  return times;
}

/**
 * Sizes of what is uploaded: what a cold start loads (`index.mjs` and the chunks it imports
 * statically), the chunks loaded on first use, the source maps, and the asset deflated (≈ the zip).
 */
function sizes(dir: string): { atInit: number; onFirstUse: number; map: number; zipped: number } {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((f) => f.isFile())
    .map((f) => join(f.parentPath, f.name));
  const zipped = files.reduce((sum, f) => sum + deflateRawSync(readFileSync(f)).length, 0);
  const total = (pick: (f: string) => boolean) =>
    files.filter(pick).reduce((sum, f) => sum + statSync(f).size, 0);
  const init = new Set(loadedAtInit(dir));
  return {
    atInit: total((f) => init.has(f)),
    onFirstUse: total((f) => f.endsWith('.mjs') && !init.has(f)),
    map: total((f) => f.endsWith('.map')),
    zipped,
  };
}

const rows: string[][] = [];
/** The deployed API handler's size and median init, for the goal line. */
let api: { bytes: number; ms: number } | undefined;
function row(label: string, bundle: SynthesisedBundle, times: number[]): string[] {
  const size = sizes(bundle.dir);
  return [
    `lambda/handlers/${bundle.handlerFile}`,
    label,
    bundle.environment.NODE_OPTIONS ?? '(none)',
    mb(size.atInit),
    size.onFirstUse ? mb(size.onFirstUse) : '—',
    size.map ? mb(size.map) : '—',
    mb(size.zipped),
    `${median(times).toFixed(1)} ms`,
    `${Math.min(...times).toFixed(1)}–${Math.max(...times).toFixed(1)} ms`,
  ];
}

const deployed = synthStackBundles(out, embeddedConfig());
if (options.save) {
  const saveDir = resolve(options.save);
  const saved = deployed.map((bundle) => {
    const dir = join(saveDir, bundle.handlerFile.replace(/\.ts$/, ''));
    cpSync(bundle.dir, dir, { recursive: true });
    return { ...bundle, dir };
  });
  writeFileSync(join(saveDir, 'bundles.json'), JSON.stringify(saved, null, 2));
  console.log(`saved ${saved.length} deployed bundles in ${saveDir}`);
  process.exit(0);
}
const before: SynthesisedBundle[] = options.against
  ? (JSON.parse(readFileSync(join(resolve(options.against), 'bundles.json'), 'utf8')) as SynthesisedBundle[])
  : [];
// The same functions, environments and config; only one choice differs in each.
const configFile = join(out, 'bench.config.json');
const alternatives: { label: string; bundles: SynthesisedBundle[] }[] = options['deployed-only']
  ? []
  : [
      {
        label: LAMBDA_BUNDLE.splitting ? 'alternative: one eager file' : 'alternative: chunks on first use',
        bundles: synthAlternativeBundles(out, configFile, {
          sourceMap: LAMBDA_BUNDLE.sourceMap,
          splitting: !LAMBDA_BUNDLE.splitting,
        }),
      },
      {
        label: LAMBDA_BUNDLE.sourceMap ? 'alternative: no source map' : 'alternative: source map',
        bundles: synthAlternativeBundles(out, configFile, {
          sourceMap: !LAMBDA_BUNDLE.sourceMap,
          splitting: LAMBDA_BUNDLE.splitting,
        }),
      },
    ];
const others = [
  ...(before.length ? [{ label: `before (saved in ${options.against})`, bundles: before }] : []),
  ...alternatives,
];
const deployedLabel = `deployed (${LAMBDA_BUNDLE.splitting ? 'chunks' : 'one file'}, ${LAMBDA_BUNDLE.sourceMap ? 'source map' : 'no source map'})`;
for (const bundle of deployed) {
  const { NODE_OPTIONS: _, ...sharedEnv } = bundle.environment;
  const builds = others.map(({ label, bundles }) => {
    const other = bundles.find((a) => a.handlerFile === bundle.handlerFile);
    if (!other) throw new Error(`no alternative build of ${bundle.handlerFile}`);
    return { label, build: { ...other, environment: { ...sharedEnv, ...other.environment } } };
  });
  const times = interleavedInitTimes([bundle, ...builds.map((b) => b.build)]);
  if (bundle.handlerFile === 'api.ts') api = { bytes: sizes(bundle.dir).atInit, ms: median(times[0] ?? []) };
  rows.push(row(deployedLabel, bundle, times[0] ?? []));
  for (const [i, { label, build }] of builds.entries()) rows.push(row(label, build, times[i + 1] ?? []));
}

const header = [
  'handler',
  'build',
  'NODE_OPTIONS',
  'loaded at init',
  'loaded on first use',
  'source maps',
  'asset zipped',
  'module init, median',
  `range (${RUNS} fresh processes)`,
];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
console.log(line(header));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const row of rows) console.log(line(row));
console.log(
  `\nNode ${process.version}, ${RUNS} fresh processes each; the deployed rows are the assets of \`cdk synth\`.`,
);
const met = api !== undefined && api.bytes <= 1.2 * 1024 * 1024 && api.ms <= 100;
console.log(
  `goal: API code loaded at init ≤ 1.2 MB and ≤ 100 ms module init — ${met ? 'met' : 'NOT met'} (${api ? `${mb(api.bytes)}, ${api.ms.toFixed(1)} ms` : 'no API bundle'})`,
);
