/**
 * The Lambda bundles carry only what runs in AWS: each handler is bundled the way the stack
 * bundles it (esbuild with `LAMBDA_BUNDLE`), and the inputs esbuild reports must hold no tool for
 * people (`lambda/dev/`: fakes, demo; `lambda/cli/`) and nothing from `test/`.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { LAMBDA_BUNDLE } from '../../lib/lambda-bundle.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Folders whose code must never reach a Lambda bundle. */
const FORBIDDEN = ['lambda/dev/', 'lambda/cli/', 'test/'];

/** Every source file esbuild reads for `entry` (paths relative to the repository), bundled as the stack bundles it. */
async function bundleInputs(entry: string): Promise<string[]> {
  const result = await build({
    entryPoints: [join(ROOT, entry)],
    absWorkingDir: ROOT,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: LAMBDA_BUNDLE.target,
    minify: LAMBDA_BUNDLE.minify,
    keepNames: LAMBDA_BUNDLE.keepNames,
    mainFields: [...LAMBDA_BUNDLE.mainFields],
    banner: { js: LAMBDA_BUNDLE.banner },
    external: [...LAMBDA_BUNDLE.externalModules],
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  return Object.keys(result.metafile.inputs);
}

const forbiddenIn = (inputs: readonly string[]) =>
  inputs.filter((path) => FORBIDDEN.some((folder) => path.startsWith(folder)));

describe('Lambda bundles', () => {
  it.each(['lambda/handlers/api.ts', 'lambda/handlers/worker.ts', 'lambda/handlers/scheduler.ts'])(
    '%s bundles no dev tool, CLI or test code',
    async (entry) => {
      const inputs = await bundleInputs(entry);
      expect(inputs).toContain(entry);
      expect(inputs.filter((path) => path.startsWith('lambda/')).length).toBeGreaterThan(20);
      expect(forbiddenIn(inputs)).toEqual([]);
    },
  );

  it('would see a dev tool that a bundle reached (the CLI bundle holds the fakes and the demo)', async () => {
    const found = forbiddenIn(await bundleInputs('lambda/cli/run-cli.ts'));
    expect(found).toEqual(
      expect.arrayContaining(['lambda/dev/fakes/openai-fake.ts', 'lambda/dev/demo/run-demo.ts']),
    );
  });
});
