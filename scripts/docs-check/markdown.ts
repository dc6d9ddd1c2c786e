/**
 * The little of Markdown the docs check needs: fenced blocks, headings and their GitHub anchors,
 * relative links, and the `switchyard` commands shown in shell blocks. Pure: text in, data out.
 */

/** A fenced code block: its info string (`sh`, `json`, or empty) and its lines. */
export interface FencedBlock {
  lang: string;
  lines: string[];
}

/** A link found in the prose: its target as written and the 1-based line it is on. */
export interface DocLink {
  target: string;
  line: number;
}

/** A `switchyard` command shown in a shell block: the command word and the word after it. */
export interface ShownCommand {
  command: string;
  action: string | undefined;
  line: number;
}

const FENCE = /^\s*(```+|~~~+)\s*([\w-]*)/;

/** Splits a document into prose lines (with their line numbers) and fenced blocks. */
function split(text: string): {
  prose: { text: string; line: number }[];
  blocks: (FencedBlock & { start: number })[];
} {
  const prose: { text: string; line: number }[] = [];
  const blocks: (FencedBlock & { start: number })[] = [];
  let open: (FencedBlock & { start: number; fence: string }) | undefined;
  text.split('\n').forEach((raw, index) => {
    const fence = FENCE.exec(raw);
    if (open) {
      if (fence?.[1]?.startsWith(open.fence) && raw.trim().replace(/[`~]/g, '') === '') {
        blocks.push({ lang: open.lang, lines: open.lines, start: open.start });
        open = undefined;
      } else open.lines.push(raw);
    } else if (fence) open = { lang: fence[2] ?? '', lines: [], start: index + 2, fence: fence[1] ?? '```' };
    else prose.push({ text: raw, line: index + 1 });
  });
  return { prose, blocks };
}

/** Text of a heading as GitHub renders it: no code ticks, no emphasis, links reduced to their text. */
function headingText(raw: string): string {
  return raw
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .replace(/(\*\*|\*)/g, '')
    .trim();
}

/** GitHub's anchor for a heading text: lower case, punctuation dropped, spaces to hyphens. */
export function githubSlug(text: string): string {
  return headingText(text)
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a document offers, with GitHub's `-1`, `-2` suffixes for repeated headings. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text: line } of split(text).prose) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading?.[1]) continue;
    const slug = githubSlug(heading[1]);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Links and images in the prose (code spans and fenced blocks are not links). */
export function linksOf(text: string): DocLink[] {
  const links: DocLink[] = [];
  for (const { text: line, line: number } of split(text).prose) {
    const withoutCode = line.replace(/`[^`]*`/g, '');
    for (const match of withoutCode.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      if (match[1]) links.push({ target: match[1], line: number });
    }
  }
  return links;
}

const SHELL_LANGS = new Set(['sh', 'bash', 'shell', 'console', 'zsh']);
const COMMAND = /(?:^|[\s;&|(])(?:npx\s+)?switchyard\s+([a-z][a-z0-9-]*)(?:\s+([a-z][a-z0-9-]*))?/g;

/**
 * `switchyard <command> [action]` shown in a shell block (`sh`, `bash`, `shell`, `console`), or on
 * a `$ ` prompt line of any block. Shell comments are ignored.
 */
export function commandsOf(text: string): ShownCommand[] {
  const shown: ShownCommand[] = [];
  for (const block of split(text).blocks) {
    const shell = SHELL_LANGS.has(block.lang);
    block.lines.forEach((raw, index) => {
      const prompt = /^\s*\$\s+(.*)$/.exec(raw);
      if (!shell && !prompt) return;
      const code = (prompt?.[1] ?? raw).replace(/(^|\s)#.*$/, '');
      for (const match of code.matchAll(COMMAND)) {
        if (match[1]) shown.push({ command: match[1], action: match[2], line: block.start + index });
      }
    });
  }
  return shown;
}
