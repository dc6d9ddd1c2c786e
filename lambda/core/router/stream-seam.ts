/**
 * The seam between what a caller already received and a continuation
 * (docs/concepts.md#streams-cut-after-output): a model asked to continue a prefill may begin by
 * writing again what the caller has (the whitespace the prefill dropped, or the last word). The
 * seam holds the continuation's first characters until it can tell, then lets through only what
 * is new. Pure and synchronous.
 */

/** Longest overlap looked for, in characters. Default 64: a few words. */
export const SEAM_WINDOW_CHARS = 64;

const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);
const isWordChar = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}_]/u.test(c);

/**
 * How many leading characters of `continuation` repeat the end of `received`. An overlap counts
 * only when it is whole words on both sides: in `received` it starts at the start, after
 * whitespace, or with whitespace; in `continuation` it is followed by a character that is not
 * part of a word (or, with `complete`, by nothing). So `the capital` + ` capital of` overlaps by
 * ` capital`, but `the` + `e end` and `the capital` + ` capitalism` do not.
 */
export function seamOverlap(
  received: string,
  continuation: string,
  complete: boolean,
  window: number = SEAM_WINDOW_CHARS,
): number {
  const longest = Math.min(window, received.length, continuation.length);
  for (let k = longest; k > 0; k--) {
    const start = received.length - k;
    if (!continuation.startsWith(received.slice(start))) continue;
    const startsWhole = start === 0 || isSpace(received[start - 1]) || isSpace(received[start]);
    const next = continuation[k];
    const endsWhole = next === undefined ? complete : !isWordChar(next) || !isWordChar(continuation[k - 1]);
    if (startsWhole && endsWhole) return k;
  }
  return 0;
}

/** A seam for one continuation: feed it the continuation's text, it returns what the caller should get. */
export interface StreamSeam {
  /** The part of `text` (and of what was held before it) that can go out now; '' while undecided. */
  push(text: string): string;
  /** The continuation ended: whatever is still held, less any overlap. */
  flush(): string;
}

/**
 * A seam after `received` (the caller's text so far). It holds the continuation until it has
 * more than `window` characters (or more than `received` has), decides the overlap once, and
 * passes everything after that straight through.
 */
export function createSeam(received: string, window: number = SEAM_WINDOW_CHARS): StreamSeam {
  const needed = Math.min(window, received.length);
  let held = '';
  let decided = needed === 0;
  const decide = (complete: boolean) => {
    decided = true;
    const out = held.slice(seamOverlap(received, held, complete, window));
    held = '';
    return out;
  };
  return {
    push(text) {
      if (decided) return text;
      held += text;
      return held.length > needed ? decide(false) : '';
    },
    flush: () => (decided ? '' : decide(true)),
  };
}
