/**
 * The Lambda bundles carry only what runs in AWS: each handler is bundled the way the stack
 * bundles it (esbuild with `LAMBDA_BUNDLE`), and the inputs esbuild reports must hold no tool for
 * people (`lambda/dev/`: fakes, demo; `lambda/cli/`) and nothing from `test/`; and no weight that
 * never runs, such as zod's error messages in forty languages.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { lambdaBuildOptions } from '../../lib/lambda-bundle.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/**
 * Folders whose code must never reach a Lambda bundle. `lambda/jobs/sqlite/` is `serve`'s local
 * job file: Lambda's jobs live in DynamoDB and SQS, and `node:sqlite` has no place there.
 */
const FORBIDDEN = ['lambda/dev/', 'lambda/cli/', 'lambda/jobs/sqlite/', 'test/'];

/**
 * Every source file with code in the bundle of `entry` (paths relative to the repository), in
 * `index.mjs` or any of its chunks, bundled as the stack bundles it.
 */
async function bundleInputs(entry: string): Promise<string[]> {
  const result = await build({
    ...lambdaBuildOptions(join(ROOT, entry), join(ROOT, 'out'), ROOT),
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  const inputs = new Set<string>();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [path, input] of Object.entries(output.inputs)) if (input.bytesInOutput > 0) inputs.add(path);
  }
  return [...inputs];
}

/**
 * `import { z } from 'zod'` is a namespace re-export that esbuild cannot tree-shake: it pulls every
 * zod locale (267 KB of the 1.40 MB API bundle). `import * as z from 'zod'` keeps English only.
 */
const zodLocalesIn = (inputs: readonly string[]) =>
  inputs.filter((path) => path.includes('node_modules/zod/v4/locales/') && !path.endsWith('/en.js'));

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
      expect(zodLocalesIn(inputs)).toEqual([]);
    },
  );

  it('would see the SQLite job file that serve uses (the CLI bundle holds it)', async () => {
    const found = forbiddenIn(await bundleInputs('lambda/cli/run-cli.ts'));
    expect(found).toEqual(
      expect.arrayContaining([
        'lambda/jobs/sqlite/sqlite-job-store.ts',
        'lambda/jobs/sqlite/open-jobs-db.ts',
      ]),
    );
  });

  it('the API bundle holds the OpenTelemetry API only: the SDK and exporter come from the ADOT layer on AWS', async () => {
    const inputs = await bundleInputs('lambda/handlers/api.ts');
    const otel = inputs.filter((path) => path.includes('node_modules/@opentelemetry/'));
    expect(otel.some((path) => path.includes('node_modules/@opentelemetry/api/'))).toBe(true);
    expect(otel.filter((path) => !path.includes('node_modules/@opentelemetry/api/'))).toEqual([]);
    expect(inputs).not.toContain('lambda/tracing/otel-sdk.ts');
  });

  it("would see zod's locales if a file imported the z namespace by name", async () => {
    const inputs = await bundleInputs('test/fixtures/zod-named-import.ts');
    expect(zodLocalesIn(inputs).length).toBeGreaterThan(30);
  });

  it('would see a dev tool that a bundle reached (the CLI bundle holds the fakes and the demo)', async () => {
    const found = forbiddenIn(await bundleInputs('lambda/cli/run-cli.ts'));
    expect(found).toEqual(
      expect.arrayContaining(['lambda/dev/fakes/openai-fake.ts', 'lambda/dev/demo/run-demo.ts']),
    );
  });
});
