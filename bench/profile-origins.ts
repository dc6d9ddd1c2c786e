/**
 * Attribution of CPU-profile samples: the parts of a `.cpuprofile` the profile benches read, and,
 * in an unminified bundle, the module of each line (esbuild marks each module's code with a
 * `// path` comment, so a line of the bundle belongs to the module named above it).
 */
import { readFileSync } from 'node:fs';

/** The parts of a `.cpuprofile` (`node --cpu-prof`, the inspector) that the profile benches read. */
export interface CpuProfile {
  /** Start of the profile, in µs of the monotonic clock (`process.hrtime`). */
  startTime: number;
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }[];
  samples: number[];
  /** µs from the previous sample (the first: from `startTime`). */
  timeDeltas: number[];
}

/** Per bundle file, the source module of each line: esbuild's `// path` comment above it. */
export function moduleLines(file: string): string[] {
  const owners: string[] = [];
  let current = '(bundle glue)';
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    // A package seen through a linked node_modules is marked `// ../../elsewhere/node_modules/…`.
    const marker = /^\/\/ (?:\S*\/)?((?:node_modules|lambda)\/\S+)$/.exec(line);
    if (marker?.[1]) current = marker[1];
    owners.push(current);
  }
  return owners;
}

/** A package (`@smithy/core`), a project folder (`lambda/core/router`), or Node's own code. */
export function originOf(module: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(module);
  if (pkg?.[1]) return pkg[1];
  return module.split('/').slice(0, 3).join('/');
}
