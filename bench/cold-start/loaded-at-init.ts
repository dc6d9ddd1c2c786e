import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The files a cold start loads: `index.mjs` and every chunk it imports statically (`import … from
 * "./chunks/…"`, as esbuild writes shared code), not those behind a dynamic `import()`.
 */
export function loadedAtInit(dir: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = readFileSync(file, 'utf8');
    // Static imports only: `from"./x.mjs"` or a bare `import"./x.mjs"`; never `import("./x.mjs")`.
    for (const [, path] of code.matchAll(/(?:from|import)\s*"(\.\.?\/[^"]+\.mjs)"/g)) {
      if (path) visit(join(dirname(file), path));
    }
  };
  visit(join(dir, 'index.mjs'));
  return [...seen];
}
