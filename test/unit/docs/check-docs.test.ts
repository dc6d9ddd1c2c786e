import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { checkDocs, type HelpRunner } from '../../../scripts/docs-check/check-docs.js';
import { anchorsOf, commandsOf, githubSlug, linksOf } from '../../../scripts/docs-check/markdown.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const fence = '```';

/** A CLI with `chain get|set` and `doctor`, answering like `switchyard <command> --help`. */
const fakeHelp: HelpRunner = async (command) => {
  if (command === 'chain')
    return { ok: true, usage: 'usage: switchyard chain get <p>\n       switchyard chain set <p> "<c>"\n' };
  if (command === 'doctor') return { ok: true, usage: 'usage: switchyard doctor [--config FILE]\n' };
  return { ok: false, usage: '', error: '--help exited 2' };
};

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

function repo(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'docs-check-'));
  dirs.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('githubSlug', () => {
  it.each([
    ['The attempt loop', 'the-attempt-loop'],
    ['Evidence: headers and the ledger', 'evidence-headers-and-the-ledger'],
    ['8. The first request', '8-the-first-request'],
    ['The read cache (`SWITCHYARD_BREAKER_CACHE_MS`)', 'the-read-cache-switchyard_breaker_cache_ms'],
    [
      "Parameter Store's higher throughput: enable or not?",
      'parameter-stores-higher-throughput-enable-or-not',
    ],
    ['Caller keys (local gateway)', 'caller-keys-local-gateway'],
  ])('turns %j into #%s', (heading, slug) => {
    expect(githubSlug(heading)).toBe(slug);
  });

  it('numbers a repeated heading -1, and ignores headings inside code blocks', () => {
    const anchors = anchorsOf(`# Notes\n## Setup\n${fence}sh\n# not a heading\n${fence}\n## Setup\n`);
    expect([...anchors]).toEqual(['notes', 'setup', 'setup-1']);
  });
});

describe('linksOf and commandsOf', () => {
  it('finds links in prose but not in code spans or fenced blocks', () => {
    const text = `See [a](a.md) and ![img](img/x.svg), not \`[b](b.md)\`.\n${fence}\n[c](c.md)\n${fence}\n`;
    expect(linksOf(text).map((l) => l.target)).toEqual(['a.md', 'img/x.svg']);
  });

  it('finds commands in shell blocks and on $ prompts, not in comments or output', () => {
    const text = [
      `${fence}sh`,
      'npx switchyard chain set p "a,b"   # then switchyard nothing',
      `${fence}`,
      `${fence}`,
      '$ switchyard doctor',
      'FIX   caller keys → switchyard keys issue <name> --ssm',
      `${fence}`,
    ].join('\n');
    expect(commandsOf(text).map((c) => [c.command, c.action, c.line])).toEqual([
      ['chain', 'set', 2],
      ['doctor', undefined, 5],
    ]);
  });
});

describe('checkDocs', () => {
  it('reports a missing file, a missing anchor, an unknown command and an unknown action', async () => {
    const root = repo({
      'README.md': '[ok](docs/a.md#setup) [gone](docs/missing.md) [anchor](docs/a.md#nowhere)\n',
      'docs/a.md': `## Setup\n${fence}sh\nswitchyard chain get p\nswitchyard chain drop p\nswitchyard nosuch\n${fence}\n`,
    });
    const problems = await checkDocs(root, fakeHelp);
    expect(problems.map((p) => `${p.file}:${p.line}: ${p.message}`)).toEqual([
      'README.md:1: link docs/missing.md: docs/missing.md does not exist',
      'README.md:1: link docs/a.md#nowhere: no heading with anchor #nowhere',
      'docs/a.md:4: switchyard chain drop: not an action of chain (get, set)',
      'docs/a.md:5: switchyard nosuch: no such command (--help exited 2)',
    ]);
  });

  it('reports a source comment pointing at a heading that does not exist', async () => {
    const root = repo({
      'docs/design.md': '## The attempt loop\n',
      'lambda/core/a.ts': '/** See docs/design.md#the-attempt-loop and docs/design.md#breakers. */\n',
    });
    expect(await checkDocs(root, fakeHelp)).toEqual([
      { file: 'lambda/core/a.ts', line: 1, message: 'docs/design.md has no heading with anchor #breakers' },
    ]);
  });

  it('accepts links to files and headings that exist, and commands the CLI has', async () => {
    const root = repo({
      'README.md': '[a](docs/a.md#setup) [self](#top) [web](https://example.com/x)\n# Top\n',
      'docs/a.md': `## Setup\n${fence}sh\nnpx switchyard doctor\n${fence}\n[back](../README.md)\n`,
    });
    expect(await checkDocs(root, fakeHelp)).toEqual([]);
  });

  it("finds no broken link or unknown command in this repository's README, docs and bench/README.md", async () => {
    expect(await checkDocs(repoRoot)).toEqual([]);
  }, 180_000);
});
