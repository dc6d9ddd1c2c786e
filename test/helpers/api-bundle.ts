/**
 * The API handler bundled with the options `cdk synth` gives esbuild (`lambdaBuildOptions`: ESM,
 * minified, names kept, the AWS SDK inside, lazily imported code in chunks), so a test runs the
 * code that is deployed rather than the TypeScript source.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { bundleEntry, type LambdaBundleChoices, lambdaBuildOptions } from '../../lib/lambda-bundle.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A built bundle: the module to import, its directory, and the removal of that directory. */
export interface ApiBundle {
  entry: string;
  dir: string;
  remove(): void;
}

/** Bundles `lambda/handlers/api.ts` into a fresh directory as `index.mjs` (and its chunks). */
export async function bundleApiHandler(choices: LambdaBundleChoices = {}): Promise<ApiBundle> {
  const dir = mkdtempSync(join(ROOT, 'test', '.api-bundle-'));
  await build(lambdaBuildOptions(join(ROOT, 'lambda', 'handlers', 'api.ts'), dir, ROOT, choices));
  return { entry: bundleEntry(dir), dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
