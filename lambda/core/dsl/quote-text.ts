/** Longest piece of user text shown in a warning, in code points. Default 40. */
export const MAX_QUOTED_LENGTH = 40;

// Control characters, line/paragraph separators, bidi overrides and lone surrogates: chains come
// from headers and config, and their warnings end up in logs and terminals, where these characters
// could forge log lines or reorder what a reader sees.
function isUnsafe(code: number): boolean {
  return (
    code <= 0x1f ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0x2028 ||
    code === 0x2029 ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069) ||
    (code >= 0xd800 && code <= 0xdfff)
  );
}

function escapeChar(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  return isUnsafe(code) ? `\\u${code.toString(16).padStart(4, '0')}` : ch;
}

/**
 * Quotes user text for a warning message: `'text'`, cut to {@link MAX_QUOTED_LENGTH} code points
 * (then ending in `…`), with unsafe characters shown as `\uXXXX` escapes.
 */
export function quoteText(text: string): string {
  let out = '';
  let count = 0;
  // for..of walks code points, so an emoji is never cut in half.
  for (const ch of text) {
    if (count === MAX_QUOTED_LENGTH) return `'${out}…'`;
    out += escapeChar(ch);
    count++;
  }
  return `'${out}'`;
}

/** The whole character (code point) of `text` starting at UTF-16 offset `index`. */
export function charAt(text: string, index: number): string {
  const code = text.codePointAt(index);
  return code === undefined ? '' : String.fromCodePoint(code);
}
