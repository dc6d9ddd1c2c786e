import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  enginesRejecting,
  type LockEntry,
  npmVersionFromUserAgent,
} from '../../../scripts/install-check/engine-check.js';
import {
  enginePackagesNamed,
  unexpectedInstallLines,
} from '../../../scripts/install-check/install-output.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** One of npm's EBADENGINE blocks, as `npm ci` on Node 20 printed them before `.npmrc`. */
const engineBlock = (pkg: string, range: string) =>
  [
    'npm warn EBADENGINE Unsupported engine {',
    `npm warn EBADENGINE   package: '${pkg}',`,
    `npm warn EBADENGINE   required: { node: '${range}' },`,
    "npm warn EBADENGINE   current: { node: 'v20.20.2', npm: '11.19.1' }",
    'npm warn EBADENGINE }',
  ].join('\n');

const BABEL_RANGE = '^22.18.0 || >=24.11.0';

describe('the install output check', () => {
  it('passes what npm ci prints on the documented setup: a blank line and its summary', () => {
    expect(unexpectedInstallLines('\nadded 456 packages in 2m\n')).toEqual([]);
  });

  it('passes each shape of the summary npm prints, and a clean audit', () => {
    const output = [
      'added 1 package in 6s',
      'added 456 packages, and audited 457 packages in 800ms',
      'removed 2 packages, changed 1 package, and audited 455 packages in 1.5s',
      'up to date in 5s',
      'found 0 vulnerabilities',
    ].join('\n');
    expect(unexpectedInstallLines(output)).toEqual([]);
  });

  it('flags every line of an EBADENGINE block and names each package once, in npm order', () => {
    const output = [
      engineBlock('switchyard@0.1.0', '>=22'),
      engineBlock('@babel/parser@8.1.3', BABEL_RANGE),
      engineBlock('@babel/parser@8.1.3', BABEL_RANGE),
      engineBlock('cookie@2.0.2', '>=22'),
      '',
      'added 455 packages in 53s',
    ].join('\n');
    const unexpected = unexpectedInstallLines(output);
    expect(unexpected).toHaveLength(20);
    expect(new Set(unexpected.map((u) => u.kind))).toEqual(new Set(['engine']));
    expect(unexpected[0]).toEqual({
      line: 1,
      text: 'npm warn EBADENGINE Unsupported engine {',
      kind: 'engine',
    });
    expect(enginePackagesNamed(unexpected)).toEqual([
      'switchyard@0.1.0',
      '@babel/parser@8.1.3',
      'cookie@2.0.2',
    ]);
  });

  it('flags the install-scripts notice as a warning, and errors and any other line as what they are', () => {
    const output = [
      'npm warn install-scripts 2 packages have install scripts not yet covered by allowScripts:',
      'npm error code E404',
      '> switchyard@0.1.0 postinstall',
      '3 vulnerabilities (1 low, 2 high)',
      'added 455 packages in 53s',
    ].join('\n');
    expect(unexpectedInstallLines(output).map((u) => [u.line, u.kind])).toEqual([
      [1, 'warning'],
      [2, 'error'],
      [3, 'other'],
      [4, 'other'],
    ]);
  });
});

describe('the engine check against the Node that runs the project', () => {
  const babel: Record<string, LockEntry> = {
    'node_modules/@babel/core': { version: '8.0.10', engines: { node: BABEL_RANGE } },
  };

  it("accepts Babel 8's range on the pinned Node 24.22.3 and rejects it on the machine's Node 20", () => {
    expect(enginesRejecting(babel, { node: '24.22.3' })).toEqual([]);
    expect(enginesRejecting(babel, { node: '20.20.2' })).toEqual([
      { id: '@babel/core@8.0.10', required: BABEL_RANGE, engine: 'node' },
    ]);
  });

  it('accepts a Node exactly at the lower bound of a range and rejects the patch release before it', () => {
    expect(enginesRejecting(babel, { node: '24.11.0' })).toEqual([]);
    expect(enginesRejecting(babel, { node: '24.10.9' })).toHaveLength(1);
    expect(
      enginesRejecting(
        { '': { name: 'switchyard', version: '0.1.0', engines: { node: '>=24' } } },
        { node: '24.0.0' },
      ),
    ).toEqual([]);
  });

  it('accepts a prerelease of a newer Node, as npm does', () => {
    expect(enginesRejecting(babel, { node: '26.0.0-rc.1' })).toEqual([]);
  });

  it('names a nested package by its path and the root by its own name', () => {
    const packages: Record<string, LockEntry> = {
      '': { name: 'switchyard', version: '0.1.0', engines: { node: '>=24' } },
      'node_modules/a/node_modules/@scope/b': { version: '1.2.3', engines: { node: '>=26' } },
    };
    expect(enginesRejecting(packages, { node: '22.23.3' }).map((m) => m.id)).toEqual([
      'switchyard@0.1.0',
      '@scope/b@1.2.3',
    ]);
  });

  it('passes entries without engines or with the old array form, and checks npm only when its version is known', () => {
    const packages: Record<string, LockEntry> = {
      'node_modules/none': { version: '1.0.0' },
      'node_modules/old': { version: '1.0.0', engines: ['node >= 0.4'] },
      'node_modules/wants-npm': { version: '1.0.0', engines: { npm: '>=12' } },
    };
    expect(enginesRejecting(packages, { node: '24.22.3' })).toEqual([]);
    expect(enginesRejecting(packages, { node: '24.22.3', npm: '11.19.1' })).toEqual([
      { id: 'wants-npm@1.0.0', required: '>=12', engine: 'npm' },
    ]);
  });

  it("reads npm's version from the user agent npm gives the scripts it starts", () => {
    expect(npmVersionFromUserAgent('npm/11.19.1 node/v24.22.3 linux x64 workspaces/false ci/github')).toBe(
      '11.19.1',
    );
    expect(npmVersionFromUserAgent('yarn/1.22.0 npm/? node/v20')).toBeUndefined();
    expect(npmVersionFromUserAgent(undefined)).toBeUndefined();
  });

  it('finds every installed package, and the project itself, accepting the Node these tests run on', () => {
    const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as LockEntry;
    const installed = JSON.parse(
      readFileSync(join(repoRoot, 'node_modules', '.package-lock.json'), 'utf8'),
    ) as {
      packages: Record<string, LockEntry>;
    };
    const packages = { '': manifest, ...installed.packages };
    expect(Object.keys(packages).length).toBeGreaterThan(400);
    expect(enginesRejecting(packages, { node: process.versions.node })).toEqual([]);
    // The same tree on the machine's Node 20 is what npm warned about: the check is not vacuous.
    expect(enginesRejecting(packages, { node: '20.20.2' }).length).toBeGreaterThanOrEqual(50);
  });
});
