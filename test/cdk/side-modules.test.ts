/**
 * Modules left out of the Lambda bundle (`LAMBDA_BUNDLE.externalModules`) are built beside it by
 * the `afterBundling` commands: a bare `import()` from a file in the asset directory must find them,
 * as the bundle's `import('re2js')` does on Lambda.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { LAMBDA_BUNDLE, sideModuleCommands } from '../../lib/lambda-bundle.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const out = mkdtempSync(join(tmpdir(), 'side-modules-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('side modules of the Lambda bundles', () => {
  it('keeps the regex engine out of index.mjs, and builds it where the bundle imports it from', () => {
    expect(LAMBDA_BUNDLE.externalModules).toContain('re2js');
    for (const command of sideModuleCommands(ROOT, out)) execFileSync('bash', ['-c', command]);
    const probe = join(out, 'probe.mjs');
    writeFileSync(
      probe,
      "const { RE2JS } = await import('re2js'); process.stdout.write(String(RE2JS.compile('^(a|a)*$').test('a'.repeat(30) + '!')));",
    );
    expect(execFileSync(process.execPath, [probe], { cwd: out, encoding: 'utf8' })).toBe('false');
  });
});
