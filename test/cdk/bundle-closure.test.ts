/**
 * The Lambda bundles carry only what runs in AWS: each handler is bundled the way the stack
 * bundles it (esbuild with `LAMBDA_BUNDLE`), and the inputs esbuild reports must hold no tool for
 * people (`lambda/dev/`: fakes, demo; `lambda/cli/`) and nothing from `test/`; and no weight that
 * never runs, such as zod's error messages in forty languages. What only some requests need (a
 * provider SDK, the JSON Schema validator) is split off and loaded on first use, not at init.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { type LambdaBundleChoices, lambdaBuildOptions } from '../../lib/lambda-bundle.js';

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
 * The source files of the API bundle that a cold start loads (`index.mjs` and the chunks it imports
 * statically) and those it loads on first use (behind an `import()`).
 */
async function initAndLazyInputs(choices: LambdaBundleChoices): Promise<{ init: string[]; lazy: string[] }> {
  const result = await build({
    ...lambdaBuildOptions(join(ROOT, 'lambda/handlers/api.ts'), join(ROOT, 'out'), ROOT, choices),
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  const outputs = result.metafile.outputs;
  const atInit = new Set<string>();
  const visit = (path: string) => {
    if (atInit.has(path) || !outputs[path]) return;
    atInit.add(path);
    for (const imported of outputs[path].imports)
      if (imported.kind === 'import-statement') visit(imported.path);
  };
  visit(Object.keys(outputs).find((path) => path.endsWith('/index.mjs')) ?? '');
  const inputsOf = (paths: string[]) =>
    paths.flatMap((path) =>
      Object.entries(outputs[path]?.inputs ?? {})
        .filter(([, input]) => input.bytesInOutput > 0)
        .map(([input]) => input),
    );
  const all = Object.keys(outputs);
  return {
    init: inputsOf(all.filter((p) => atInit.has(p))),
    lazy: inputsOf(all.filter((p) => !atInit.has(p))),
  };
}

/** Packages a request loads when it needs them: provider SDKs, the JSON Schema validator, RE2. */
const ON_FIRST_USE = [
  'node_modules/@anthropic-ai/sdk/',
  'node_modules/@aws-sdk/client-bedrock-runtime/',
  'node_modules/ajv/',
  'node_modules/re2js/',
];
const packagesIn = (inputs: readonly string[]) =>
  ON_FIRST_USE.filter((pkg) => inputs.some((path) => path.startsWith(pkg)));

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

  it('the API handler loads the provider SDKs, ajv and RE2 on first use, not at init', async () => {
    const { init, lazy } = await initAndLazyInputs({ splitting: true });
    expect(packagesIn(init)).toEqual([]);
    expect(packagesIn(lazy)).toEqual(ON_FIRST_USE);
    expect(init).toContain('lambda/families/anthropic/anthropic-family.ts');
    expect(init).not.toContain('lambda/families/anthropic/anthropic-chat-model.ts');
  });

  it('would see them at init in a bundle without code splitting', async () => {
    const { init, lazy } = await initAndLazyInputs({ splitting: false });
    expect(packagesIn(init)).toEqual(ON_FIRST_USE);
    expect(lazy).toEqual([]);
  });
});
