/**
 * How every Switchyard Lambda is bundled (esbuild), shared by the CDK constructs, the tests that
 * run the bundled handler and `bench/cold-start` / `bench/cost`, so that what is measured and
 * tested is exactly what is deployed.
 *
 * The AWS SDK is bundled too rather than taken from the runtime: one minified file loads in about
 * half the time of the SDK's hundreds of modules (measured in bench/cold-start), and the clients
 * are the versions the tests ran against.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions } from 'esbuild';

export const LAMBDA_BUNDLE = {
  /** The Lambda runtime's Node (`nodejs24.x`), which is also the Node every test runs on. */
  target: 'node24',
  minify: true,
  /**
   * No source map: with `--enable-source-maps` Node parses the 7 MB map at every cold start
   * (+100–300 ms of module init in bench/cold-start) and the zipped asset grows fivefold, to
   * decode stack traces that never reach a caller (logs carry error names; `keepNames` keeps
   * function names readable). Flip it to debug a crash; the bench shows the cost both ways.
   */
  sourceMap: false as boolean,
  /**
   * Code splitting: every dynamic `import()` (a provider family's SDK client, ajv and its drafts,
   * the RE2 engine, the AWS SDK's credential providers) becomes a chunk under `chunks/` that
   * Node loads on first use, so a cold start compiles only `index.mjs` (0.9 MB instead of 1.4 MB
   * for the API; bench/cold-start measures both ways). `false` builds one eager file.
   */
  splitting: true as boolean,
  /** The failure matrix reads SDK error class names; keep them through minification. */
  keepNames: true,
  mainFields: ['module', 'main'],
  /** ESM bundles still meet CommonJS dependencies that call require(). */
  banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
} as const;

/**
 * `node:http` as its CommonJS module (`lib/lambda-shims/node-http.cjs`): importing it as ESM
 * builds Node's ESM facade, which reads `http.WebSocket` and so loads undici at every cold start
 * (about 10 ms of module init; test/integration/handlers/api-handler-init.test.ts).
 */
const NODE_HTTP_SHIM = join(dirname(fileURLToPath(import.meta.url)), 'lambda-shims', 'node-http.cjs');

/** The choices a build may flip against {@link LAMBDA_BUNDLE} (the benches build both ways). */
export interface LambdaBundleChoices {
  /** Default `LAMBDA_BUNDLE.sourceMap`. */
  sourceMap?: boolean | undefined;
  /** Default `LAMBDA_BUNDLE.splitting`. */
  splitting?: boolean | undefined;
}

/** Folder of the lazily loaded chunks inside a bundle's directory. */
export const CHUNK_FOLDER = 'chunks';

/**
 * esbuild's options for one handler: `<outdir>/index.mjs` (the handler module the runtime
 * imports, `index.handler`), its chunks under `<outdir>/chunks/`, and `.map` files beside them
 * when there is a source map. `absWorkingDir` is the project root (package resolution).
 */
export function lambdaBuildOptions(
  entry: string,
  outdir: string,
  root: string,
  choices: LambdaBundleChoices = {},
): BuildOptions & { outdir: string } {
  return {
    entryPoints: { index: entry },
    absWorkingDir: root,
    outdir,
    entryNames: '[name]',
    chunkNames: `${CHUNK_FOLDER}/[name]-[hash]`,
    outExtension: { '.js': '.mjs' },
    splitting: choices.splitting ?? LAMBDA_BUNDLE.splitting,
    sourcemap: choices.sourceMap ?? LAMBDA_BUNDLE.sourceMap,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: LAMBDA_BUNDLE.target,
    minify: LAMBDA_BUNDLE.minify,
    keepNames: LAMBDA_BUNDLE.keepNames,
    mainFields: [...LAMBDA_BUNDLE.mainFields],
    banner: { js: LAMBDA_BUNDLE.banner },
    alias: { http: NODE_HTTP_SHIM, 'node:http': NODE_HTTP_SHIM },
    logLevel: 'warning',
  };
}

/** The handler module of a bundle built into `outdir`. */
export const bundleEntry = (outdir: string): string => join(outdir, 'index.mjs');

/** What a bundle with a source map runs with: Node maps stack traces back to the TypeScript. */
export const SOURCE_MAP_ENVIRONMENT: Record<string, string> = {
  NODE_OPTIONS: '--enable-source-maps',
};
