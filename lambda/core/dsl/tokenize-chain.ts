/** The single characters that give a chain its structure. */
export type ChainPunctuation = '(' | ')' | '|' | ',' | '*';

/**
 * One lexical token of a chain. `pos` is the 0-based UTF-16 offset of its first character in the
 * original string (the same unit as `String.prototype.slice`).
 *
 * A `word` is a maximal run of characters that are neither whitespace nor punctuation. It is not
 * validated here: the parser decides whether it is a model name, a weight, or junk, so that one
 * bad character yields one warning about the whole word instead of a cascade.
 */
export type ChainToken =
  | { kind: 'word'; text: string; pos: number }
  | { kind: ChainPunctuation; pos: number };

/** Smallest weight a chain may give a group member (`A*0.001`). Inclusive. */
export const MIN_CHAIN_WEIGHT = 0.001;

/** Largest weight a chain may give a group member (`A*1000000`). Inclusive. */
export const MAX_CHAIN_WEIGHT = 1_000_000;

// Model keys, aliases and raw provider ids such as `meta.llama3-3-70b-instruct-v1:0` or
// `meta-llama/llama-3.3-70b-instruct` are ASCII; anything else in a name is far more likely a typo
// or pasted junk than a real id, so it is rejected rather than passed to the catalog.
const NAME_CHAR = /^[A-Za-z0-9\-_.:/@]$/;
const WHITESPACE = /^\s$/;
// Plain decimals only: exponents (`1e3`), signs and hex are not weights a human writes by hand.
const WEIGHT_TEXT = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

function punctuation(ch: string): ChainPunctuation | undefined {
  switch (ch) {
    case '(':
    case ')':
    case '|':
    case ',':
    case '*':
      return ch;
    default:
      return undefined;
  }
}

/**
 * Splits a chain into tokens, dropping whitespace (any character matching `\s`, including
 * newlines and Unicode spaces). Never throws; linear in the length of the input.
 */
export function tokenizeChain(chain: string): ChainToken[] {
  const tokens: ChainToken[] = [];
  let i = 0;
  while (i < chain.length) {
    const ch = chain.charAt(i);
    const kind = punctuation(ch);
    if (kind !== undefined) {
      tokens.push({ kind, pos: i });
      i++;
    } else if (WHITESPACE.test(ch)) {
      i++;
    } else {
      const start = i;
      while (i < chain.length) {
        const next = chain.charAt(i);
        if (punctuation(next) !== undefined || WHITESPACE.test(next)) break;
        i++;
      }
      tokens.push({ kind: 'word', text: chain.slice(start, i), pos: start });
    }
  }
  return tokens;
}

/**
 * Offset (UTF-16 units) of the first character of `text` that may not appear in a model name,
 * or -1 when every character is allowed. Allowed: ASCII letters, digits and `-_.:/@`.
 */
export function findInvalidNameChar(text: string): number {
  for (let i = 0; i < text.length; i++) {
    if (!NAME_CHAR.test(text.charAt(i))) return i;
  }
  return -1;
}

/** True when `text` contains at least one character allowed in a model name. */
export function hasNameChar(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (NAME_CHAR.test(text.charAt(i))) return true;
  }
  return false;
}

/**
 * Reads the text after `*` as a weight: a plain decimal (`3`, `2.5`, `.5`) from
 * {@link MIN_CHAIN_WEIGHT} to {@link MAX_CHAIN_WEIGHT}. Returns `undefined` for anything else.
 *
 * The bounds keep every accepted weight printable by `String(weight)` without exponent notation,
 * so a printed chain always parses back to the same number, and keep a sum of weights finite.
 */
export function parseWeight(text: string): number | undefined {
  if (!WEIGHT_TEXT.test(text)) return undefined;
  const value = Number(text);
  return value >= MIN_CHAIN_WEIGHT && value <= MAX_CHAIN_WEIGHT ? value : undefined;
}
