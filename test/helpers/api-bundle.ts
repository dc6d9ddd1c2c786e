/**
 * The API handler bundled with the flags `cdk synth` gives esbuild (`LAMBDA_BUNDLE`: ESM,
 * minified, names kept, the AWS SDK inside, `re2js` left out), so a test runs the code that is
 * deployed rather than the TypeScript source. Written under the project root, so the bundle's
 * `import('re2js')` resolves from the project's node_modules as it does from the asset's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { LAMBDA_BUNDLE } from '../../lib/lambda-bundle.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A built bundle: the module to import, and the removal of its directory. */
export interface ApiBundle {
  entry: string;
  remove(): void;
}

/** Bundles `lambda/handlers/api.ts` into a fresh directory as `index.mjs`. */
export async function bundleApiHandler(): Promise<ApiBundle> {
  const dir = mkdtempSync(join(ROOT, 'test', '.api-bundle-'));
  const entry = join(dir, 'index.mjs');
  await build({
    entryPoints: [join(ROOT, 'lambda', 'handlers', 'api.ts')],
    outfile: entry,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: LAMBDA_BUNDLE.target,
    minify: LAMBDA_BUNDLE.minify,
    keepNames: LAMBDA_BUNDLE.keepNames,
    mainFields: [...LAMBDA_BUNDLE.mainFields],
    banner: { js: LAMBDA_BUNDLE.banner },
    external: [...LAMBDA_BUNDLE.externalModules],
    logLevel: 'warning',
  });
  return { entry, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
