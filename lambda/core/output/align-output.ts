import type { SubstitutesSettings } from '../catalog/output-config-schema.js';

// ATX headings: up to three spaces, 1–6 #, a space (or nothing after the #s).
const HEADING = /^ {0,3}#{1,6}(?:[ \t].*)?$/;
// A list item: `-`, `*`, `+`, `•`, or `1.` / `1)`, then a space.
const LIST_ITEM = /^\s*(?:[-*+•]|\d{1,9}[.)])\s+(.*)$/;
// Where a sentence may end, and the full-width marks that end one without a following space.
const SENTENCE_END = /[.!?。！？…]/;
const WIDE_END = /[。！？…]/;
const WIDE = /[\u3000-\u9fff\uff00-\uffef]/;

/**
 * A substitute's answer brought in line with tier 1's style (docs/design.md#output-alignment):
 * headings removed, then lists folded into sentences, then the length cut at a sentence end.
 */
export function alignOutput(text: string, settings: SubstitutesSettings): string {
  let out = text;
  if (settings.stripHeadings) out = stripHeadings(out);
  if (settings.foldLists) out = foldLists(out);
  if (settings.maxChars !== undefined) out = cutAtSentence(out, settings.maxChars);
  return out;
}

/** Removes markdown heading lines (`# Title`), and the blank lines they leave doubled. */
export function stripHeadings(text: string): string {
  const kept = text.split('\n').filter((line) => !HEADING.test(line));
  return kept
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/^\n+|\n+$/g, '');
}

/** Each run of list items becomes one line of sentences: `- a\n- b` → `a. b.` */
export function foldLists(text: string): string {
  const out: string[] = [];
  let run: string[] = [];
  const flush = () => {
    if (run.length > 0) out.push(run.map(asSentence).reduce((line, s) => joinSentences(line, s)));
    run = [];
  };
  for (const line of text.split('\n')) {
    const item = LIST_ITEM.exec(line)?.[1]?.trim();
    if (item) run.push(item);
    else {
      flush();
      out.push(line);
    }
  }
  flush();
  return out.join('\n');
}

function asSentence(item: string): string {
  if (/[.!?。！？…:;：；]$/.test(item)) return item;
  return WIDE.test(item.at(-1) ?? '') ? `${item}。` : `${item}.`;
}

const joinSentences = (line: string, next: string) =>
  WIDE_END.test(line.at(-1) ?? '') ? line + next : `${line} ${next}`;

/**
 * At most `maxChars` characters (code points), cut after the last sentence end that fits; with
 * none, at the last space; with none, hard. A `.` inside `1.5` is not a sentence end.
 */
export function cutAtSentence(text: string, maxChars: number): string {
  const chars = Array.from(text);
  if (chars.length <= maxChars) return text;
  let sentence = 0;
  let space = 0;
  for (let i = 0; i < maxChars; i++) {
    const c = chars[i] ?? '';
    const after = chars[i + 1];
    if (SENTENCE_END.test(c) && (WIDE_END.test(c) || after === undefined || /[\s"'”’)\]]/.test(after)))
      sentence = i + 1;
    if (/\s/.test(c)) space = i;
  }
  const end = sentence > 0 ? sentence : space > 0 ? space : maxChars;
  return chars.slice(0, end).join('').trimEnd();
}
