/**
 * How every Switchyard Lambda is bundled (esbuild), shared by the CDK constructs and
 * `bench/cold-start`, so the benchmark measures exactly what is deployed.
 *
 * The AWS SDK is bundled too rather than taken from the runtime: one minified file loads in about
 * half the time of the SDK's hundreds of modules (measured in bench/cold-start), and the clients
 * are the versions the tests ran against.
 */
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
  /** The failure matrix reads SDK error class names; keep them through minification. */
  keepNames: true,
  mainFields: ['module', 'main'],
  /** ESM bundles still meet CommonJS dependencies that call require(). */
  banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  /**
   * Left out of `index.mjs` and shipped beside it ({@link sideModuleCommands}), because they load
   * only when needed: `re2js` (157 KB minified, the regex engine of callers' schema patterns) is
   * imported on the first schema with a pattern, so a cold start does not parse it.
   */
  externalModules: ['re2js'] as string[],
} as const;

/**
 * Shell commands (a `NodejsFunction` `afterBundling` hook) that build each external module into
 * `<output>/node_modules/<name>/index.mjs`, minified, with a one-line package.json, so that the
 * bundle's `import('re2js')` resolves in the asset directory like any installed package.
 */
export function sideModuleCommands(input: string, output: string): string[] {
  return LAMBDA_BUNDLE.externalModules.flatMap((name) => {
    const dir = `${output}/node_modules/${name}`;
    const manifest = JSON.stringify({ name, type: 'module', exports: './index.mjs' });
    return [
      `mkdir -p "${dir}"`,
      // esbuild resolves the import of its stdin from the working directory: the project root.
      `cd "${input}" && echo "export * from '${name}';" | node_modules/.bin/esbuild --bundle --minify --format=esm --platform=node --target=${LAMBDA_BUNDLE.target} --log-level=warning --outfile="${dir}/index.mjs"`,
      `printf '%s' '${manifest}' > "${dir}/package.json"`,
    ];
  });
}

/** What a bundle with a source map runs with: Node maps stack traces back to the TypeScript. */
export const SOURCE_MAP_ENVIRONMENT: Record<string, string> = {
  NODE_OPTIONS: '--enable-source-maps',
};
