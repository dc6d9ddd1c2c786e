/**
 * `npx tsx scripts/check-install.ts <npm-ci-output-file>` (run by `.ci/run` after `npm ci`):
 * fails when the install printed anything but npm's summary (docs/toolchain.md, "What npm
 * prints"), and when an installed package's `engines` reject the Node this runs on (the pinned
 * one, when started through npx) — the check npm makes against the machine's Node instead, and
 * whose warnings `.npmrc` therefore silences. Prints one line per problem; exit 1 if any.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { enginesRejecting, type LockEntry, npmVersionFromUserAgent } from './install-check/engine-check.js';
import { enginePackagesNamed, unexpectedInstallLines } from './install-check/install-output.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const logFile = process.argv[2];
if (!logFile) {
  console.error('usage: tsx scripts/check-install.ts <file with the output of npm ci>');
  process.exit(2);
}

const problems: string[] = [];

const unexpected = unexpectedInstallLines(readFileSync(logFile, 'utf8'));
const engineNames = enginePackagesNamed(unexpected);
if (engineNames.length > 0) {
  problems.push(`npm ci printed EBADENGINE for ${engineNames.length} package(s): ${engineNames.join(', ')}`);
}
for (const { line, text, kind } of unexpected) {
  if (kind !== 'engine') problems.push(`npm ci output line ${line} (${kind}): ${text}`);
}

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as LockEntry;
const installed = JSON.parse(readFileSync(join(root, 'node_modules', '.package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};
const node = process.versions.node;
const npm = npmVersionFromUserAgent(process.env.npm_config_user_agent);
const packages = { '': manifest, ...installed.packages };
for (const m of enginesRejecting(packages, { node, npm })) {
  problems.push(
    `${m.id} wants ${m.engine} ${m.required}; this is ${m.engine} ${m.engine === 'node' ? node : npm}`,
  );
}

for (const p of problems) console.error(`install: ${p}`);
const checked = Object.keys(packages).length;
console.log(
  problems.length === 0
    ? `install: npm printed only its summary; the engines of all ${checked} packages accept node ${node} (${process.execPath})`
    : `install: ${problems.length} problem(s)`,
);
process.exitCode = problems.length === 0 ? 0 : 1;
