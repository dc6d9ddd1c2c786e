/**
 * bench/cold-start: each Lambda bundle as `cdk synth` builds it (`LAMBDA_BUNDLE`: esbuild, ESM,
 * minified, the AWS SDK bundled in), its size, and its module initialisation time in fresh Node
 * processes on this machine. Goal: ≤ 1.5 MB and ≤ 150 ms.
 *
 *   npm run bench:cold-start
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { LAMBDA_BUNDLE } from '../../lib/lambda-bundle.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RUNS = 15;
const HANDLERS = ['api', 'worker', 'scheduler'];

// Inside the project, so any external module would resolve from node_modules.
const out = mkdtempSync(join(ROOT, 'bench', 'cold-start', '.out-'));
const config = join(out, 'switchyard.config.json');
copyFileSync(join(ROOT, 'lambda', 'local', 'default-config.json'), config);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

const rows: string[][] = [];
for (const name of HANDLERS) {
  const outfile = join(out, `${name}.mjs`);
  await build({
    entryPoints: [join(ROOT, 'lambda', 'handlers', `${name}.ts`)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: LAMBDA_BUNDLE.target,
    minify: LAMBDA_BUNDLE.minify,
    keepNames: LAMBDA_BUNDLE.keepNames,
    mainFields: [...LAMBDA_BUNDLE.mainFields],
    external: [...LAMBDA_BUNDLE.externalModules],
    banner: { js: LAMBDA_BUNDLE.banner },
    logLevel: 'error',
  });
  const probe = join(out, `probe-${name}.mjs`);
  writeFileSync(
    probe,
    // The Node.js runtime defines `awslambda` before it loads a handler; a streaming handler needs it at import.
    'globalThis.awslambda = { streamifyResponse: (f) => f, HttpResponseStream: { from: (s) => s } };\n' +
      `const t = performance.now(); await import(${JSON.stringify(outfile)}); process.stdout.write(String(performance.now() - t));`,
  );
  const env = {
    ...process.env,
    AWS_REGION: 'us-east-1',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    SWITCHYARD_CONFIG: config,
    SWITCHYARD_JOBS_TABLE: 'jobs',
    SWITCHYARD_JOB_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/jobs',
  };
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++)
    times.push(Number(execFileSync(process.execPath, [probe], { env, encoding: 'utf8' })));
  const kb = statSync(outfile).size / 1024;
  rows.push([
    `lambda/handlers/${name}.ts`,
    `${(kb / 1024).toFixed(2)} MB (${kb.toFixed(0)} KB)`,
    `${median(times).toFixed(1)} ms`,
    `${Math.min(...times).toFixed(1)}–${Math.max(...times).toFixed(1)} ms`,
  ]);
}

const header = ['handler', 'bundle (minified)', 'module init, median', `range (${RUNS} fresh processes)`];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
console.log(line(header));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const row of rows) console.log(line(row));
console.log(`\nGoal: ≤ 1.5 MB and ≤ 150 ms (Node ${process.version}, ${RUNS} fresh processes each).`);
execFileSync('rm', ['-rf', out]);
