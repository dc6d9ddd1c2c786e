/**
 * The engine check npm makes at install time, made against the right Node. npm compares every
 * package's `engines` with the Node that runs npm, which here is the machine's own (often older)
 * Node, while every script runs on the Node the project installs (docs/toolchain.md). This check
 * compares them with the Node that runs it, started through npm, so the pinned one.
 */
import semver from 'semver';

/** The part of a `package-lock.json` (or `node_modules/.package-lock.json`) entry read here. */
export interface LockEntry {
  name?: string;
  version?: string;
  engines?: unknown;
}

/** A package whose `engines` do not accept the Node (or npm) the check was given. */
export interface EngineMismatch {
  /** `name@version`, as npm names packages in its warnings. */
  id: string;
  /** The range the package declares for the engine that fails. */
  required: string;
  engine: 'node' | 'npm';
}

/** The versions to check against; `npm` is left unchecked when not known. */
export interface EngineVersions {
  node: string;
  npm?: string | undefined;
}

/**
 * Every entry of a lockfile's `packages` map whose `engines.node` (or `engines.npm`, when
 * `versions.npm` is given) is not satisfied, with prereleases allowed as npm allows them.
 * Entries without `engines`, or with the old array form npm itself ignores, pass.
 */
export function enginesRejecting(
  packages: Record<string, LockEntry>,
  versions: EngineVersions,
): EngineMismatch[] {
  const mismatches: EngineMismatch[] = [];
  for (const [path, entry] of Object.entries(packages)) {
    const engines = entry.engines;
    if (typeof engines !== 'object' || engines === null || Array.isArray(engines)) continue;
    const id = `${entry.name ?? nameFromPath(path)}@${entry.version ?? '?'}`;
    for (const engine of ['node', 'npm'] as const) {
      const required = (engines as Record<string, unknown>)[engine];
      const current = versions[engine];
      if (typeof required !== 'string' || current === undefined) continue;
      if (!semver.satisfies(current, required, { includePrerelease: true })) {
        mismatches.push({ id, required, engine });
      }
    }
  }
  return mismatches;
}

/** `node_modules/a/node_modules/@s/b` → `@s/b`; the root entry (`''`) has no name here. */
function nameFromPath(path: string): string {
  const at = path.lastIndexOf('node_modules/');
  return at === -1 ? path || '(root)' : path.slice(at + 'node_modules/'.length);
}

/** npm's version from `npm_config_user_agent` (`npm/11.19.1 node/v24.22.3 …`), if npm started us. */
export function npmVersionFromUserAgent(userAgent: string | undefined): string | undefined {
  return /(?:^|\s)npm\/(\d+\.\d+\.\d+\S*)/.exec(userAgent ?? '')?.[1];
}
