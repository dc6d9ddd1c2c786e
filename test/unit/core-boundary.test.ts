import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The core (`lambda/core`) is the routing logic that knows no vendor: front doors
 * (`lambda/doors`) and provider families (`lambda/families`) are plugins at its edges
 * (docs/design.md). This test reads every core source file as text and holds it to that.
 */
const CORE = resolve(import.meta.dirname, '../../lambda/core');

/** Names of the vendors and wire formats the edges speak; none belongs in the core's code. */
const VENDOR = /openai|anthropic|bedrock|vertex|gemini|claude/i;

/** The only packages the core may import: its schema library. Everything else comes in as a parameter. */
const ALLOWED_PACKAGES = new Set(['zod']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/**
 * The file's code without its comments. Strings stay (a vendor name in a string is vocabulary);
 * a `//` or `/*` inside a string or a regex literal is rare in the core and would only hide text
 * from the check, never invent a finding.
 */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:\\'"`])\/\/.*$/gm, '$1');
}

/** Every module specifier the file imports, statically or dynamically, and re-exports. */
function specifiers(text: string): string[] {
  const found = text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm);
  return [...found].map((match) => match[1] as string);
}

const FILES = sourceFiles(CORE).map((path) => ({
  name: relative(CORE, path),
  path,
  text: readFileSync(path, 'utf8'),
}));

describe('the core knows no vendor', () => {
  it('reads a real tree: the core has its many source files', () => {
    expect(FILES.length).toBeGreaterThan(100);
  });

  it('names no file or folder after a vendor', () => {
    expect(FILES.map((f) => f.name).filter((name) => VENDOR.test(name))).toEqual([]);
  });

  it('has no vendor name in its code: identifiers and strings', () => {
    const offenders = FILES.flatMap((file) =>
      code(file.text)
        .split('\n')
        .flatMap((line, index) => (VENDOR.test(line) ? [`${file.name}:${index + 1}: ${line.trim()}`] : [])),
    );
    expect(offenders).toEqual([]);
  });

  it('imports nothing but its own modules and zod: no SDK, no HTTP framework, no door or family', () => {
    const offenders = FILES.flatMap((file) =>
      specifiers(file.text).flatMap((spec) => {
        if (spec.startsWith('.')) {
          const target = resolve(dirname(file.path), spec);
          return target.startsWith(`${CORE}/`) ? [] : [`${file.name} imports ${spec} (outside lambda/core)`];
        }
        return ALLOWED_PACKAGES.has(spec) ? [] : [`${file.name} imports ${spec}`];
      }),
    );
    expect(offenders).toEqual([]);
  });

  it('reads no environment and takes no time or randomness of its own', () => {
    const offenders = FILES.flatMap((file) =>
      /\bprocess\.env\b|\bDate\.now\(|\bMath\.random\(|\bnew Date\(\)/.test(code(file.text))
        ? [file.name]
        : [],
    );
    expect(offenders).toEqual([]);
  });
});

describe('the boundary check itself', () => {
  it('finds a vendor name in code and not in a comment', () => {
    expect(VENDOR.test(code("const family = 'bedrock';"))).toBe(true);
    expect(VENDOR.test(code('/** as the OpenAI SDK does */\nconst x = 1; // Anthropic too'))).toBe(false);
  });

  it('reads static, side-effect and dynamic imports', () => {
    const text =
      "import { a } from './a.js';\nimport 'openai/shims';\nconst b = await import('hono');\nexport * from '../c.js';";
    expect(specifiers(text)).toEqual(['./a.js', 'openai/shims', 'hono', '../c.js']);
  });
});
